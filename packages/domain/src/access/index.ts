export * from "./Capabilities.ts"
export * from "./Projection.ts"
