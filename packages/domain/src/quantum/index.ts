/**
 * The post-quantum readiness part of the domain core: reading and matching the
 * third-party rows, snapshots, and the served payloads. Never feeds grades.
 */
export * from "./QuantumReadiness.ts"
export * from "./QuantumRows.ts"
export * from "./QuantumSnapshot.ts"
