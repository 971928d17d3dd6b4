export * from "./Capabilities.ts"
export * from "./Projection.ts"
export * from "./Readable.ts"
export * from "./ListFilter.ts"
