export * from "./Api.ts"
export * from "./MethodologyApi.ts"
export * from "./SystemApi.ts"
export * from "./CurrentCaller.ts"
