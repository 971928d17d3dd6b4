/**
 * Port: where quantum-readiness snapshots and refresh outcomes are kept. Only
 * the latest of each is ever read, but the store is shared by every server
 * process, so a snapshot fetched by one is served by all.
 */
import { Context, type Effect, type Option } from "effect"
import type { QuantumRefreshOutcome, QuantumSnapshot } from "../quantum/QuantumSnapshot.ts"
import type { StoreError } from "./StoreError.ts"

export class QuantumSnapshotStore extends Context.Service<
  QuantumSnapshotStore,
  {
    /**
     * Makes this snapshot the latest. A snapshot of more than MaxQuantumRows
     * rows is refused (a StoreError): the latest is always one that can be served.
     */
    readonly save: (snapshot: QuantumSnapshot) => Effect.Effect<void, StoreError>
    /** The latest snapshot within the bounds a read serves; one stored over them by older code is passed over. */
    readonly latest: Effect.Effect<Option.Option<QuantumSnapshot>, StoreError>
    /** Makes this the last refresh outcome. */
    readonly recordOutcome: (outcome: QuantumRefreshOutcome) => Effect.Effect<void, StoreError>
    readonly lastOutcome: Effect.Effect<Option.Option<QuantumRefreshOutcome>, StoreError>
  }
>()("@ratings/domain/ports/QuantumSnapshotStore") {}
