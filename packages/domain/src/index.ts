/**
 * @ratings/domain: the pure core of the ratings service. Imports `effect` only,
 * so other tools can score a scorecard without a server, a database or Node.
 * Every module is also reachable by path: `@ratings/domain/scoring/ScoreEntity`.
 */
export * from "./access/index.ts"
export * from "./import/index.ts"
export * from "./incidents/index.ts"
export * from "./model/AlertRule.ts"
export * from "./model/Caller.ts"
export * from "./model/Delivery.ts"
export * from "./model/EntityType.ts"
export * from "./model/ExportFields.ts"
export * from "./model/Incident.ts"
export * from "./model/index.ts"
export * from "./model/ServiceInfo.ts"
export * from "./model/WebhookEvent.ts"
export * from "./model/WebhookTest.ts"
export * from "./ports/index.ts"
export * from "./quantum/index.ts"
export * from "./scoring/index.ts"
export * from "./services/index.ts"
export * from "./webhooks/index.ts"
