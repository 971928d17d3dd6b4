/**
 * The schedule of quantum-readiness refreshes (spec part 4 "Quantum
 * readiness"): a read never waits on the upstream, so something must fetch
 * ahead of the reads. On start it refreshes at once when there is no snapshot
 * or the latest has expired; after that every `interval`, each wait counted
 * from the end of the previous refresh, forever. Nothing stops the loop but
 * interruption: a failed refresh keeps the previous snapshot, and anything
 * else is logged and the loop carries on. Every server process runs its own
 * loop over the shared store; two refreshing at once is harmless, since each
 * saves a complete snapshot and the last save wins.
 */
import { Cause, Clock, Duration, Effect, Layer, Option } from "effect"
import { QuantumSnapshotStore } from "../ports/QuantumSnapshotStore.ts"
import { isExpired } from "../quantum/QuantumSnapshot.ts"
import { QuantumService } from "./QuantumService.ts"

export interface QuantumRefresherOptions {
  /** Time between refreshes; 1 hour unless set. Positive and finite. */
  readonly interval?: Duration.Input | undefined
}

/** The wait between refreshes unless set; the snapshot's time to live is QuantumService's. */
export const DefaultRefreshInterval: Duration.Duration = Duration.hours(1)

/** Logs whatever `effect` failed or died with and carries on; only interruption goes through. */
const survive = <R>(what: string, effect: Effect.Effect<void, unknown, R>): Effect.Effect<void, never, R> =>
  effect.pipe(
    Effect.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause)
        ? Effect.failCause(cause as Cause.Cause<never>)
        : Effect.logWarning(`quantum readiness refresher: ${what} failed`, Cause.pretty(cause))
    )
  )

/**
 * The refresh loop. It never ends and never fails; fork it (or use `layer`)
 * and interrupt it to stop. A fresh snapshot at start (fetched by another
 * process a minute ago, say) is left alone.
 */
export const run = (
  options: QuantumRefresherOptions = {}
): Effect.Effect<never, never, QuantumService | QuantumSnapshotStore> =>
  Effect.gen(function* () {
    const interval = Duration.fromInputUnsafe(options.interval ?? DefaultRefreshInterval)
    const intervalMillis = Duration.toMillis(interval)
    if (!(intervalMillis > 0 && Number.isFinite(intervalMillis)))
      return yield* Effect.die(
        new Error(`quantum refresh interval must be positive and finite: ${intervalMillis}`)
      )
    const service = yield* QuantumService
    const store = yield* QuantumSnapshotStore

    const refresh = survive(
      "refresh",
      Effect.gen(function* () {
        const { outcome, snapshot } = yield* service.refresh
        // a failure was already logged and recorded by the service
        if (outcome.ok && snapshot !== undefined)
          yield* Effect.logInfo(
            `quantum readiness refreshed: ${snapshot.rows.length} rows, ${snapshot.rows_skipped} skipped`
          )
      })
    )

    /** No snapshot, or an expired one; when the store cannot say, refreshing is the safe side. */
    const due = Effect.gen(function* () {
      const latest = yield* store.latest
      if (Option.isNone(latest)) return true
      return isExpired(latest.value, yield* Clock.currentTimeMillis)
    }).pipe(
      Effect.catch((error) =>
        Effect.logWarning("quantum readiness refresher: latest snapshot unreadable", error.message).pipe(
          Effect.as(true)
        )
      )
    )

    if (yield* due) yield* refresh
    return yield* Effect.forever(Effect.andThen(Effect.sleep(interval), refresh))
  }).pipe(Effect.withSpan("QuantumRefresher.run"))

/** Runs the loop for as long as the layer lives (forked in the layer's scope). */
export const layer = (
  options: QuantumRefresherOptions = {}
): Layer.Layer<never, never, QuantumService | QuantumSnapshotStore> =>
  Layer.effectDiscard(Effect.forkScoped(run(options)))
