/**
 * The dispatcher's two ways of sending what is due: `runOnce` (claim up to
 * `concurrency`, attempt them all, report) and `run`, the loop that claims
 * ahead of its send slots and sleeps while nothing is due, and which stops
 * gracefully when its scope closes (`runUntilClosed`).
 */
import { Clock, Deferred, Duration, Effect, Fiber, Latch, Option, type Scope, Semaphore } from "effect"
import { destinationHost, SendScheduler } from "../../webhooks/SendScheduler.ts"
import type { HeldClaim } from "../../ports/DeliveryOutbox.ts"
import type { Settled } from "./Attempt.ts"
import type { Claim } from "./Claim.ts"
import type { LoopState, Ready } from "./LoopState.ts"
import { makeSending, type SendSettings } from "./Sending.ts"
import type { Claimed, DispatchSummary } from "./Settings.ts"

/** What `runOnce` and `run` work with, fixed when the dispatcher is built. */
export interface Dispatching extends SendSettings {
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
  readonly claim: (at: number, limit: number) => Effect.Effect<Claim>
  /** Hands claims back to the outbox at once; it never fails (what it could not release keeps its lease). */
  readonly release: (claims: ReadonlyArray<HeldClaim>) => Effect.Effect<void>
  /** An attempt of `runOnce`, recorded with the next batch, that never fails (undefined when not recorded). */
  readonly attemptSafely: (claimed: Claimed) => Effect.Effect<Settled | undefined>
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
      return permits.withPermit(d.attemptSafely(c))
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
const hostOf = (c: Claimed, sends?: SendScheduler<Ready>): string =>
  c.destination === undefined
    ? ""
    : sends === undefined
      ? destinationHost(c.destination.webhook_url)
      : sends.hostOf(c.destination.webhook_url)

const newLoopState = (d: Dispatching): LoopState => ({
  sends: new SendScheduler<Ready>(d.concurrency, d.hostConcurrency),
  dueTimes: new Set<number>(),
  recording: 0,
  wakeAt: Number.NEGATIVE_INFINITY,
  waitingForRoom: false,
  stopping: false
})

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
      const kick = yield* Latch.make(false)
      const sending = yield* makeSending(d, state, kick)
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
        for (const c of claimed) sends.offer(hostOf(c, sends), { claimed: c, at: now, token })
        sending.startReady()
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
      // The sends in flight go on meanwhile: their callbacks and writers need no turn of this fiber.
      yield* d.release(unstarted.map((r) => ({ deliveryId: r.claimed.delivery.delivery_id, token: r.token })))
      while (sending.busy()) {
        yield* kick.close
        if (!sending.busy()) break
        yield* kick.await
      }
      yield* sending.awaitWriters
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
