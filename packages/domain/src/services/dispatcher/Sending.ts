/**
 * The sends of the dispatcher's loop, without a fiber per delivery (its span,
 * timeout race and deferred cost more CPU than the POST): starting one is
 * plain code (sign, the transport's `start` with a callback, count it in
 * flight). The callback frees the slot, starts the next ready delivery at
 * once and queues the outcome for the recorder (SentRecorder.ts). The rules
 * stay the domain's: the scheduler's bounds, the state machine, the retry
 * schedule, endpoint health. A transport that overruns its timeout is cut off
 * `TransportGraceMs` later (a watchdog on the effect clock); closing the
 * loop's scope aborts every send in flight, left unrecorded to its lease.
 */
import { Clock, Duration, Effect, FiberSet, Latch } from "effect"
import { noResponse, type TransportOutcome } from "../../model/Delivery.ts"
import type { AbortSend, SendDone, TransportWarning, WebhookRequest } from "../../ports/WebhookTransport.ts"
import { attemptSafely, overran, requestOf } from "./Attempt.ts"
import type { LoopState, Ready } from "./LoopState.ts"
import { type Fork, makeSentRecorder, settled } from "./SentRecorder.ts"
import { type Claimed, type DispatcherPorts, RuleDeletedMessage, TransportGraceMs } from "./Settings.ts"

/** What the sends work with, fixed when the dispatcher is built. */
export interface SendSettings {
  readonly ports: DispatcherPorts
  /** A ready delivery claimed longer ago than this is not started: it is left to its lease. */
  readonly startDeadlineMs: number
}

/** A send in flight: its delivery, and whether its outcome was taken (reported, cut off, or abandoned). */
interface InFlight {
  readonly ready: Ready
  readonly host: string
  readonly at: number
  abort: AbortSend | undefined
  over: boolean
}

const tooLate = (ready: Ready) =>
  Effect.logWarning(
    "webhook delivery not attempted: it waited too long for a send slot; it returns when its claim expires"
  ).pipe(
    Effect.annotateLogs({
      delivery_id: ready.claimed.delivery.delivery_id,
      rule_id: ready.claimed.delivery.rule_id
    })
  )

const warned = ({ message, annotations }: TransportWarning) =>
  Effect.logWarning(message).pipe(Effect.annotateLogs(annotations))

/** A transport without `start` is driven through `send`, a fiber per send (tests' transports). */
const startOf = (ports: DispatcherPorts, fork: Fork) =>
  ports.transport.start ??
  ((request: WebhookRequest, done: SendDone): AbortSend => {
    const fiber = fork(Effect.map(ports.transport.send(request), (outcome) => done(outcome)))
    return () => void fiber.interruptUnsafe()
  })

/**
 * Cuts off sends that overran their timeout by the grace (`cut`), forever, on
 * the effect clock; while nothing is in flight it waits for `started`.
 */
const watchdog = (
  ports: DispatcherPorts,
  clock: Clock.Clock,
  inFlight: Set<InFlight>,
  started: Latch.Latch,
  cut: (f: InFlight, elapsedMs: number) => void
) =>
  Effect.gen(function* () {
    const limit = ports.policy.receiverTimeoutMs + TransportGraceMs
    while (true) {
      if (inFlight.size === 0) {
        started.closeUnsafe()
        yield* started.await
        continue
      }
      const now = clock.currentTimeMillisUnsafe()
      let wake = Number.POSITIVE_INFINITY
      // In start order, and every send has the same limit: the first not yet due is the earliest.
      for (const f of inFlight) {
        if (f.at + limit > now) {
          wake = f.at + limit
          break
        }
        cut(f, now - f.at)
      }
      if (wake !== Number.POSITIVE_INFINITY) yield* Effect.sleep(Duration.millis(Math.max(1, wake - now)))
    }
  })

/** Closing the scope (interruption, or the end of the stop grace) aborts what is still in flight. */
const abortOnClose = (inFlight: Set<InFlight>, onClose: () => void) =>
  Effect.addFinalizer(() =>
    Effect.sync(() => {
      onClose()
      for (const f of inFlight) {
        f.over = true
        f.abort?.()
      }
      inFlight.clear()
    })
  )

/** A disabled endpoint's delivery: its slot freed at once, held unsent by a fiber of the loop. */
const holdUnsent = (
  ports: DispatcherPorts,
  state: LoopState,
  kick: Latch.Latch,
  fork: Fork,
  claimed: Claimed,
  host: string
) => {
  state.sends.done(host)
  state.recording++
  const unused = () => Effect.die(new Error("a held delivery records no attempt"))
  fork(Effect.map(attemptSafely(ports, claimed, unused), () => settled(state, kick, 1)))
}

/**
 * The loop's sends, living in the caller's scope: `startReady` starts ready
 * deliveries in the free slots (plain code, also run from the transport's
 * callbacks); `kick` opens when an attempt settles while the loop waits for
 * room, an earlier retry, or (stopping) the end of its work in flight.
 */
export const makeSending = (s: SendSettings, state: LoopState, kick: Latch.Latch) =>
  Effect.gen(function* () {
    const { ports } = s
    const clock = yield* Clock.Clock
    const fibers = yield* FiberSet.make<void>()
    const fork: Fork = yield* FiberSet.runtime(fibers)<never>()
    const recorder = makeSentRecorder(ports, state, kick, fork)
    const start = startOf(ports, fork)
    const inFlight = new Set<InFlight>()
    // Opened when a send starts with none in flight: the watchdog waits on it meanwhile.
    const started = Latch.makeUnsafe(false)
    let starting = false
    let closed = false

    /** A send is over: its slot is free for the next ready delivery, and its outcome waits to be recorded. */
    const finish = (f: InFlight, outcome: TransportOutcome, warning?: TransportWarning) => {
      if (f.over) return
      f.over = true
      inFlight.delete(f)
      state.sends.done(f.host)
      if (warning !== undefined) recorder.note(warned(warning))
      const { delivery, destination } = f.ready.claimed
      recorder.queue({ claimed: delivery, input: { at: f.at, outcome } }, destination)
      startReady()
    }

    /** Starts one ready delivery: a deleted rule's is recorded unsent, a disabled endpoint's held (a fiber). */
    const startOne = (ready: Ready, host: string, now: number) => {
      const { claimed } = ready
      const f: InFlight = { ready, host, at: now, abort: undefined, over: false }
      if (claimed.destination === undefined)
        return finish(f, noResponse("target_refused", 0, RuleDeletedMessage))
      if (claimed.destination.disabled) return holdUnsent(ports, state, kick, fork, claimed, host)
      inFlight.add(f)
      if (inFlight.size === 1) started.openUnsafe()
      f.abort = start(requestOf(ports, claimed.delivery, claimed.destination, now), (outcome, warning) =>
        finish(f, outcome, warning)
      )
    }

    /** Starts ready deliveries in the free slots. Not re-entered: the loop below takes what frees meanwhile. */
    function startReady(): void {
      if (starting) return
      starting = true
      try {
        while (!state.stopping && !closed) {
          const next = state.sends.next()
          if (next === undefined) break
          const now = clock.currentTimeMillisUnsafe()
          if (now - next.item.at <= s.startDeadlineMs) startOne(next.item, next.host, now)
          else {
            state.sends.done(next.host)
            recorder.note(tooLate(next.item))
          }
        }
      } finally {
        starting = false
      }
    }

    // Settled before the abort, which a transport reports at once as an interruption.
    const cut = (f: InFlight, elapsed: number) => {
      finish(f, overran(elapsed))
      f.abort?.()
    }
    yield* Effect.forkScoped(watchdog(ports, clock, inFlight, started, cut))
    yield* abortOnClose(inFlight, () => {
      closed = true
      recorder.close()
    })

    return {
      startReady,
      /** Sends in flight or outcomes not yet settled. */
      busy: () => state.sends.inFlight + state.recording > 0,
      /** Waits for the writers' and held deliveries' fibers to end. */
      awaitWriters: FiberSet.awaitEmpty(fibers)
    }
  })
