/**
 * `ratings mcp`: the service's MCP server for AI agents over stdio, for an
 * agent host that starts it as a subprocess. Its tools (adapters-mcp
 * RatingsTools.ts) call the API at RATINGS_API_URL with the key in
 * RATINGS_API_KEY (none: as an anonymous caller), through the typed client of
 * the contract, so the key's tier and rate limits apply; it names itself after
 * the operator's branding (RATINGS_SERVICE_NAME). A setting it cannot use
 * stops it at start, the variable and the problem said on standard error.
 * Standard output carries the protocol's messages and nothing else: log lines
 * go to standard error. The server ends, exiting 0, when the host closes its
 * standard input (or on SIGTERM).
 */
import { Command } from "effect/cli"
import { lazily } from "./Lazy.ts"

export const McpCommand = Command.make("mcp", {}, () =>
  lazily(
    () => import("./run/Mcp.ts"),
    (run) => run.mcp()
  )
).pipe(
  Command.withDescription(
    "Serve the MCP tools for AI agents over stdio, calling the API at RATINGS_API_URL with RATINGS_API_KEY"
  )
)
