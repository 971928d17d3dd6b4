/**
 * @ratings/domain: the pure core of the ratings service. Imports `effect` only,
 * so other tools can score a scorecard without a server, a database or Node.
 */
export * from "./access/index.ts"
export * from "./model/Caller.ts"
export * from "./model/EntityType.ts"
export * from "./scoring/index.ts"
