/**
 * The MCP server for AI agents: the tools (RatingsTools.ts), each answered
 * over the typed client of the HTTP contract (ToolHandlers.ts), served over
 * stdio by `ratings mcp` and at /mcp beside the API (McpEndpoint.ts, mounted
 * by the app through `serve`'s routes).
 */
export * from "./McpEndpoint.ts"
export * from "./RatingsMcpServer.ts"
export * from "./RatingsTools.ts"
