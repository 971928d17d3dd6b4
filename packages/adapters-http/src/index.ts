export * from "./api/index.ts"
export * from "./server/Handlers.ts"
export * from "./server/HttpServerLive.ts"
