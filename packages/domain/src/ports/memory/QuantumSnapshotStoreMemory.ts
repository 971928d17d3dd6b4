/** The in-memory `QuantumSnapshotStore` of tests and tools; the contract is the port's (`../QuantumSnapshotStore.ts`). */
import { Effect, Layer, Option, Ref } from "effect"
import {
  type QuantumRefreshOutcome,
  type QuantumSnapshot,
  unstorableReason
} from "../../quantum/QuantumSnapshot.ts"
import { StoreError } from "../StoreError.ts"
import { QuantumSnapshotStore } from "../QuantumSnapshotStore.ts"

const layer = Layer.effect(
  QuantumSnapshotStore,
  Effect.gen(function* () {
    const snapshot = yield* Ref.make(Option.none<QuantumSnapshot>())
    const outcome = yield* Ref.make(Option.none<QuantumRefreshOutcome>())
    return QuantumSnapshotStore.of({
      save: (s) => {
        const refused = unstorableReason(s)
        return refused === undefined
          ? Ref.set(snapshot, Option.some(s))
          : Effect.fail(new StoreError({ message: `quantum snapshot store, save: ${refused}` }))
      },
      latest: Ref.get(snapshot),
      recordOutcome: (o) => Ref.set(outcome, Option.some(o)),
      lastOutcome: Ref.get(outcome)
    })
  })
)

export const QuantumSnapshotStoreMemory = { layer }
