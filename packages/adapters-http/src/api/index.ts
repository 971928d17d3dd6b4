export * from "./Api.ts"
export * from "./MethodologyApi.ts"
export * from "./SystemApi.ts"
