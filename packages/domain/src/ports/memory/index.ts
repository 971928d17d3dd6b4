/**
 * The in-memory implementations of the ports, one file beside each port
 * (`<Port>Memory.ts`): what the tests, the demo and tools run on. Each is
 * reached as `<Port>Memory.layer`.
 */
export * from "./AlertRuleRepositoryMemory.ts"
export * from "./ApiKeyRepositoryMemory.ts"
export * from "./ChainDirectoryMemory.ts"
export * from "./ContactRequestRepositoryMemory.ts"
export * from "./DeliveryOutboxMemory.ts"
export * from "./EntityRepositoryMemory.ts"
export * from "./ExportLogMemory.ts"
export * from "./IdGeneratorMemory.ts"
export * from "./IncidentRepositoryMemory.ts"
export * from "./QuantumSnapshotStoreMemory.ts"
export * from "./QuantumSourceMemory.ts"
export * from "./RatedProtocolsMemory.ts"
export * from "./RubricRepositoryMemory.ts"
export * from "./ScorecardRepositoryMemory.ts"
export * from "./TransactionMemory.ts"
export * from "./WebhookTransportMemory.ts"
