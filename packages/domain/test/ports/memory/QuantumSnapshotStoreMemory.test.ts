/**
 * The QuantumSnapshotStore contract (test/support/contract) over the in-memory
 * layer; adapters-sql's PgQuantumSnapshotStore.test.ts runs it over Postgres.
 */
import { QuantumSnapshotStoreMemory } from "../../../src/ports/memory/QuantumSnapshotStoreMemory.ts"
import { quantumSnapshotStoreContract } from "../../support/contract/events-quantum-snapshot-store.ts"

quantumSnapshotStoreContract("layerMemory", () => QuantumSnapshotStoreMemory.layer)
