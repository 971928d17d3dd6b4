/**
 * The hack-incident part of the domain core: tiers, source independence,
 * matching to rated protocols, the lifecycle state machine and the feed.
 */
export * from "./IncidentFeed.ts"
export * from "./IncidentLifecycle.ts"
export * from "./IncidentMatching.ts"
export * from "./IncidentTier.ts"
export * from "./SourceIndependence.ts"
