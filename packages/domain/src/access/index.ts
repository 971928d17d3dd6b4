export * from "./Capabilities.ts"
export * from "./Projection.ts"
export * from "./ListFilter.ts"
export * from "./RequestLimits.ts"
