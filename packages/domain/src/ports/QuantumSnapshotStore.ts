/**
 * Port: where quantum-readiness snapshots and refresh outcomes are kept. Only
 * the latest of each is ever read, but the store is shared by every server
 * process, so a snapshot fetched by one is served by all.
 */
import { Context, Effect, Layer, Option, Ref } from "effect"
import type { QuantumRefreshOutcome, QuantumSnapshot } from "../quantum/QuantumSnapshot.ts"
import type { StoreError } from "./StoreError.ts"

export class QuantumSnapshotStore extends Context.Service<
  QuantumSnapshotStore,
  {
    /** Makes this snapshot the latest. */
    readonly save: (snapshot: QuantumSnapshot) => Effect.Effect<void, StoreError>
    readonly latest: Effect.Effect<Option.Option<QuantumSnapshot>, StoreError>
    /** Makes this the last refresh outcome. */
    readonly recordOutcome: (outcome: QuantumRefreshOutcome) => Effect.Effect<void, StoreError>
    readonly lastOutcome: Effect.Effect<Option.Option<QuantumRefreshOutcome>, StoreError>
  }
>()("@ratings/domain/ports/QuantumSnapshotStore") {
  static readonly layerMemory = Layer.effect(
    QuantumSnapshotStore,
    Effect.gen(function* () {
      const snapshot = yield* Ref.make(Option.none<QuantumSnapshot>())
      const outcome = yield* Ref.make(Option.none<QuantumRefreshOutcome>())
      return QuantumSnapshotStore.of({
        save: (s) => Ref.set(snapshot, Option.some(s)),
        latest: Ref.get(snapshot),
        recordOutcome: (o) => Ref.set(outcome, Option.some(o)),
        lastOutcome: Ref.get(outcome)
      })
    })
  )
}
