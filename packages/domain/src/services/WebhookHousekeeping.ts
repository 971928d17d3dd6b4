/**
 * Use case: keeping webhook storage bounded, beside the dispatcher in every
 * server. Each sweep removes finished (delivered or failed)
 * deliveries and attempts older than the retention, in small batches with a
 * pause between them, so it never holds the outbox for long nor competes
 * with delivery (pending deliveries are never touched; a failed one is kept
 * until re-fired or past retention), and destroys replaced signing keys
 * whose rotation overlap has ended. A failed sweep is logged and retried at
 * the next interval; it never stops the server.
 */
import { Cause, Clock, Context, Duration, Effect, Layer } from "effect"
import { AlertRuleRepository } from "../ports/AlertRuleRepository.ts"
import { DeliveryOutbox } from "../ports/DeliveryOutbox.ts"

/** Default retention of delivery history: 30 days. */
export const DefaultRetentionMs = 30 * 24 * 3_600_000

export interface WebhookHousekeepingOptions {
  /** How long finished deliveries and attempts are kept (default 30 days). */
  readonly retention?: Duration.Input | undefined
  /** Rows removed per statement at most (default 1,000). */
  readonly batchSize?: number | undefined
  /** The pause between two batches of one sweep (default 100 ms). */
  readonly pause?: Duration.Input | undefined
  /** The time between sweeps (default 10 minutes); the first runs at start. */
  readonly interval?: Duration.Input | undefined
}

export interface SweepSummary {
  readonly deliveries: number
  readonly attempts: number
  readonly keys: number
}

const millis = (input: Duration.Input | undefined, fallback: Duration.Input) =>
  Duration.toMillis(Duration.fromInputUnsafe(input ?? fallback))

/** The options with their defaults; a bad one is a wiring bug (a RangeError when the layer is built). */
const checkOptions = (options: WebhookHousekeepingOptions) => {
  const retentionMs = millis(options.retention, Duration.millis(DefaultRetentionMs))
  const batchSize = options.batchSize ?? 1_000
  const pauseMs = millis(options.pause, "100 millis")
  const intervalMs = millis(options.interval, "10 minutes")
  for (const [name, value] of Object.entries({ retentionMs, pauseMs, intervalMs })) {
    if (!Number.isFinite(value) || value < 0)
      throw new RangeError(`housekeeping ${name} must be >= 0, got ${value}`)
  }
  if (!Number.isInteger(batchSize) || batchSize < 1)
    throw new RangeError(`housekeeping batch size must be a whole number >= 1, got ${batchSize}`)
  return { retentionMs, batchSize, pauseMs, intervalMs }
}

export class WebhookHousekeeping extends Context.Service<
  WebhookHousekeeping,
  {
    /** One sweep at the clock's now: batches until one removes less than a full batch, then expired keys. */
    readonly sweep: Effect.Effect<SweepSummary>
  }
>()("@ratings/domain/services/WebhookHousekeeping") {
  /** The service without its loop: for tests and tools that sweep by hand. */
  static readonly layerWithoutLoop = (options: WebhookHousekeepingOptions = {}) =>
    Layer.effect(WebhookHousekeeping, make(options))

  /** The service with its loop forked for the lifetime of the layer: a sweep at start, then every interval. */
  static readonly layer = (options: WebhookHousekeepingOptions = {}) =>
    Layer.effect(
      WebhookHousekeeping,
      Effect.gen(function* () {
        const service = yield* make(options)
        const { intervalMs } = checkOptions(options)
        const sweepLogged = service.sweep.pipe(
          Effect.tap((s) =>
            s.deliveries + s.attempts + s.keys === 0
              ? Effect.void
              : Effect.logInfo("webhook history swept").pipe(Effect.annotateLogs({ ...s }))
          ),
          Effect.catchCause((cause) =>
            Cause.hasInterruptsOnly(cause)
              ? Effect.interrupt
              : Effect.logError("webhook history sweep failed; it runs again at the next interval", cause)
          )
        )
        yield* Effect.forkScoped(
          Effect.forever(Effect.andThen(sweepLogged, Effect.sleep(Duration.millis(intervalMs))))
        )
        return service
      })
    )
}

const make = (options: WebhookHousekeepingOptions) =>
  Effect.gen(function* () {
    const { retentionMs, batchSize, pauseMs } = yield* Effect.sync(() => checkOptions(options))
    const outbox = yield* DeliveryOutbox
    const rules = yield* AlertRuleRepository
    const sweep = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const total = { deliveries: 0, attempts: 0, keys: 0 }
      for (;;) {
        const pruned = yield* outbox.prune({ before: now - retentionMs, limit: batchSize })
        total.deliveries += pruned.deliveries
        total.attempts += pruned.attempts
        if (pruned.deliveries < batchSize && pruned.attempts < batchSize) break
        yield* Effect.sleep(Duration.millis(pauseMs))
      }
      total.keys = yield* rules.destroyExpiredKeys(now)
      return total as SweepSummary
    }).pipe(Effect.withSpan("WebhookHousekeeping.sweep"))
    return WebhookHousekeeping.of({ sweep })
  })
