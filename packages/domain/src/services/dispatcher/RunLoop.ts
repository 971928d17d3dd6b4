/**
 * The dispatcher's two ways of sending what is due: `runOnce` (claim up to
 * `concurrency`, attempt them all, report) and `run`, the loop that claims
 * ahead of its send slots and sleeps while nothing is due, and which stops
 * gracefully when its scope closes (`runUntilClosed`).
 */
import {
  Clock,
  Deferred,
  Duration,
  Effect,
  Fiber,
  FiberSet,
  Latch,
  Option,
  type Scope,
  Semaphore
} from "effect"
import { millisOf } from "../../model/Delivery.ts"
import { destinationHost, SendScheduler } from "../../webhooks/SendScheduler.ts"
import type { HeldClaim } from "../../ports/DeliveryOutbox.ts"
import type { Settled } from "./Attempt.ts"
import type { Claim } from "./Claim.ts"
import type { Claimed, DispatchSummary } from "./Settings.ts"

/** What `runOnce` and `run` work with, fixed when the dispatcher is built. */
export interface Dispatching {
  /** Most attempts in flight at once. */
  readonly concurrency: number
  /** Most attempts in flight at once to one destination host. */
  readonly hostConcurrency: number
  /** Deliveries `run` holds at most, counting those waiting for a host at its bound. */
  readonly maxHeld: number
  readonly pollMs: number
  /** Deliveries `run` holds at most that are being sent or recorded, or ready to start (their host has room). */
  readonly window: number
  /** `run` claims only when at least this many fit in its window. */
  readonly claimBatch: number
  /** A ready delivery claimed longer ago than this is not started: it is left to its lease. */
  readonly startDeadlineMs: number
  readonly claim: (at: number, limit: number) => Effect.Effect<Claim>
  /** Hands claims back to the outbox at once; it never fails (what it could not release keeps its lease). */
  readonly release: (claims: ReadonlyArray<HeldClaim>) => Effect.Effect<void>
  /**
   * An attempt recorded with the next batch, that never fails (undefined when
   * not recorded). `sent` runs when its send is over and its outcome is about
   * to be recorded (never, for a delivery held unsent).
   */
  readonly attemptSafely: (claimed: Claimed, sent: Effect.Effect<void>) => Effect.Effect<Settled | undefined>
}

/** `runOnce`: claims up to `concurrency` due deliveries and attempts them all concurrently. */
export const runOnce = (d: Dispatching): Effect.Effect<DispatchSummary> =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const { claimed, lost } = yield* d.claim(now, d.concurrency)
    const hosts = new Map<string, Semaphore.Semaphore>()
    const underHostBound = (c: Claimed) => {
      const host = hostOf(c)
      const permits = hosts.get(host) ?? Semaphore.makeUnsafe(d.hostConcurrency)
      hosts.set(host, permits)
      return permits.withPermit(d.attemptSafely(c, Effect.void))
    }
    const results = yield* Effect.forEach(claimed, underHostBound, { concurrency: d.concurrency })
    const summary = {
      claimed: claimed.length + lost,
      delivered: 0,
      retrying: 0,
      failed: 0,
      abandoned: lost
    }
    for (const result of results) {
      if (result === undefined) summary.abandoned++
      else if (result.delivery.status === "delivered") summary.delivered++
      else if (result.delivery.status === "failed") summary.failed++
      else summary.retrying++
    }
    return summary
  }).pipe(Effect.withSpan("WebhookDispatcher.runOnce"))

/** The host a claimed delivery is sent to; one not sent (rule deleted) counts under the empty host. */
const hostOf = (c: Claimed): string =>
  c.destination === undefined ? "" : destinationHost(c.destination.webhook_url)

/** A claimed delivery waiting in the scheduler, with when and under which token it was claimed. */
interface Ready {
  readonly claimed: Claimed
  readonly at: number
  readonly token: string
}

/**
 * The loop's state. Fibers only interleave at effect boundaries, so plain
 * fields are enough.
 */
interface LoopState {
  /** Claimed deliveries waiting for a slot (and for room under their host's bound), and those in flight. */
  readonly sends: SendScheduler<Ready>
  /** The retry times this process has recorded, so that it wakes exactly when one falls due. */
  readonly dueTimes: Set<number>
  /** Attempts whose send is over and whose outcome is being recorded: they hold no send slot. */
  recording: number
  /** When the current sleep ends (-Infinity while not sleeping). An attempt that records an earlier retry opens `kick`. */
  wakeAt: number
  /** The loop waits for the window to empty enough for a claim; the next attempt that ends opens `kick`. */
  waitingForRoom: boolean
  /** Asked to stop: nothing more is claimed or started, what is ready is handed back, and the loop waits for its attempts in flight. */
  stopping: boolean
}

const newLoopState = (d: Dispatching): LoopState => ({
  sends: new SendScheduler<Ready>(d.concurrency, d.hostConcurrency),
  dueTimes: new Set<number>(),
  recording: 0,
  wakeAt: Number.NEGATIVE_INFINITY,
  waitingForRoom: false,
  stopping: false
})

/**
 * The send slots of the loop: an effect that starts ready deliveries in the
 * free slots (one claimed too long ago is left to its lease). An attempt that
 * ends (sent and recorded, or given up) settles: its slot takes the next ready
 * delivery, the window has room for one more, and a retry it scheduled before
 * the current wake-up cuts the sleep short.
 */
const sendSlots = (
  d: Dispatching,
  state: LoopState,
  fibers: FiberSet.FiberSet<void>,
  kick: Latch.Latch
): Effect.Effect<void> => {
  const startReady: Effect.Effect<void> = Effect.gen(function* () {
    while (!state.stopping) {
      const started = state.sends.next()
      if (started === undefined) break
      const { host, item: next } = started
      const now = yield* Clock.currentTimeMillis
      if (now - next.at > d.startDeadlineMs) {
        state.sends.done(host)
        yield* Effect.logWarning(
          "webhook delivery not attempted: it waited too long for a send slot; it returns when its claim expires"
        ).pipe(
          Effect.annotateLogs({
            delivery_id: next.claimed.delivery.delivery_id,
            rule_id: next.claimed.delivery.rule_id
          })
        )
        continue
      }
      // The slot is freed once the send is over; the attempt then counts as recording until settled.
      let freed = false
      const sent = Effect.suspend(() => {
        if (freed) return Effect.void
        freed = true
        state.sends.done(host)
        state.recording++
        return startReady
      })
      yield* FiberSet.run(
        fibers,
        Effect.flatMap(d.attemptSafely(next.claimed, sent), (r) => settle(host, freed, r))
      )
    }
  })

  const settle = (host: string, freed: boolean, result: Settled | undefined) =>
    Effect.suspend(() => {
      if (freed) state.recording--
      else state.sends.done(host)
      let wake = state.waitingForRoom
      if (result !== undefined && result.delivery.status === "pending") {
        const due = millisOf(result.delivery.next_attempt_at!)
        state.dueTimes.add(due)
        if (due < state.wakeAt) wake = true
      }
      return Effect.andThen(startReady, wake ? Effect.asVoid(kick.open) : Effect.void)
    })

  return startReady
}

/** The earliest recorded retry after `now`; times already past are dropped (claimed, or claimed elsewhere). */
const soonestDue = (dueTimes: Set<number>, now: number): number => {
  let soonest = Number.POSITIVE_INFINITY
  for (const due of dueTimes) {
    if (due <= now) dueTimes.delete(due)
    else if (due < soonest) soonest = due
  }
  return soonest
}

/**
 * The loop: claims for a batch whenever its window has room for one, starts
 * what it claimed in the free slots, and sleeps until the poll interval or
 * the earliest retry it recorded, whichever comes first. Once `stop` has
 * completed it claims and starts nothing more, hands back the deliveries it
 * claimed but did not start (due at once for any process, no attempt
 * counted), waits for its attempts in flight to be sent and recorded, and
 * returns. Interrupted, it interrupts them.
 */
const loop = (d: Dispatching, state: LoopState, stop: Effect.Effect<void>): Effect.Effect<void> =>
  Effect.scoped(
    Effect.gen(function* () {
      const fibers = yield* FiberSet.make<void>()
      const kick = yield* Latch.make(false)
      const startReady = sendSlots(d, state, fibers, kick)
      // Every wait of the loop below also ends when `kick` opens.
      yield* Effect.forkScoped(
        Effect.andThen(
          stop,
          Effect.suspend(() => {
            state.stopping = true
            return kick.open
          })
        )
      )

      while (!state.stopping) {
        yield* kick.close
        state.wakeAt = Number.NEGATIVE_INFINITY
        const { sends } = state
        const room = Math.min(
          d.window - sends.inFlight - state.recording - sends.startable,
          d.maxHeld - sends.inFlight - state.recording - sends.waiting
        )
        // Claim only for a batch. While waiting, more than `concurrency` deliveries are in flight
        // or ready to start, so no slot is idle for want of a claim. Deliveries waiting for a host
        // at its bound do not count against the window, up to `maxHeld`.
        if (room < d.claimBatch) {
          state.waitingForRoom = true
          yield* kick.await
          state.waitingForRoom = false
          continue
        }
        const now = yield* Clock.currentTimeMillis
        const { claimed, token } = yield* d.claim(now, room)
        for (const c of claimed) sends.offer(hostOf(c), { claimed: c, at: now, token })
        yield* startReady
        // The window was filled: more may be due at once.
        if (claimed.length === room) continue
        // Any attempt that settles from here on with an earlier retry cuts the sleep short.
        state.wakeAt = Number.POSITIVE_INFINITY
        const at = yield* Clock.currentTimeMillis
        const wait = Math.max(0, Math.min(d.pollMs, soonestDue(state.dueTimes, at) - at))
        state.wakeAt = at + wait
        if (wait > 0) yield* Effect.raceFirst(Effect.sleep(Duration.millis(wait)), kick.await)
      }

      const unstarted = state.sends.drain()
      if (state.sends.inFlight > 0 || unstarted.length > 0)
        yield* Effect.logInfo(
          "webhook dispatcher stopping: claiming no more; attempts in flight may finish and be recorded; " +
            "claimed deliveries not started are handed back"
        ).pipe(Effect.annotateLogs({ in_flight: state.sends.inFlight, not_started: unstarted.length }))
      // The sends in flight go on meanwhile, in their own fibers.
      yield* d.release(unstarted.map((r) => ({ deliveryId: r.claimed.delivery.delivery_id, token: r.token })))
      yield* FiberSet.awaitEmpty(fibers)
    })
  )

/** `run`, the loop, forever. */
export const runLoop = (d: Dispatching): Effect.Effect<never> =>
  Effect.andThen(
    Effect.suspend(() => loop(d, newLoopState(d), Effect.never)),
    Effect.never
  )

/**
 * The loop forked for the lifetime of the scope, stopped gracefully when the
 * scope closes: it claims nothing more, hands back what it claimed but did
 * not start, and its attempts in flight have `graceMs` (from the moment the
 * scope starts closing) to be sent and recorded. Attempts still running then
 * are interrupted: nothing is recorded for them, and their deliveries return
 * when their claims expire (the receiver may have acted on a cut request, so
 * it is not sent again at once). With no grace the loop is interrupted at
 * once and everything it claimed is left to its lease.
 */
export const runUntilClosed = (d: Dispatching, graceMs: number): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function* () {
    const state = newLoopState(d)
    const stop = yield* Deferred.make<void>()
    const fiber = yield* Effect.forkScoped(loop(d, state, Deferred.await(stop)))
    // Added after the fork, so it runs before the fork's own finalizer interrupts the loop.
    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        if (graceMs <= 0) return yield* Fiber.interrupt(fiber)
        yield* Deferred.succeed(stop, undefined)
        const ended = yield* Effect.timeoutOption(Fiber.await(fiber), Duration.millis(graceMs))
        if (Option.isSome(ended)) {
          yield* Effect.logInfo("webhook dispatcher stopped: every attempt in flight finished")
          return
        }
        yield* Effect.logWarning(
          "webhook dispatcher stopped: attempts still running at the end of the shutdown grace were " +
            "interrupted; their deliveries return when their claims expire"
        ).pipe(Effect.annotateLogs({ interrupted: state.sends.inFlight }))
        yield* Fiber.interrupt(fiber)
      })
    )
  })
