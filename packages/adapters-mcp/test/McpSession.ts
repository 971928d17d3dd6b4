/**
 * An MCP client of a test server's /mcp (Effect's McpClient over streamable
 * HTTP), calling as a caller of the server: its Authorization is sent on
 * every request, as an agent host configured with a key sends it.
 */
import { Effect, type Scope } from "effect"
import { McpClient, McpProtocol, type McpSchema } from "effect/ai"
import { FetchHttpClient } from "effect/http"

export interface McpSession {
  readonly tools: ReadonlyArray<McpSchema.Tool>
  /** What the server said it is at initialize. */
  readonly serverInfo: McpSchema.Implementation | undefined
  /** Calls a tool; its text, structured content and isError. */
  readonly call: (
    name: string,
    args?: Record<string, unknown>
  ) => Effect.Effect<
    { readonly text: string; readonly structured: unknown; readonly isError: boolean },
    unknown
  >
}

export const mcpSession = (
  baseUrl: string,
  authorization: string | undefined
): Effect.Effect<McpSession, unknown, Scope.Scope> =>
  Effect.gen(function* () {
    const transport = yield* McpClient.http({
      url: `${baseUrl}/mcp`,
      protocol: McpProtocol.v2025_11_25,
      headers: authorization === undefined ? {} : { authorization }
    }).pipe(Effect.provide(FetchHttpClient.layer))
    const client = yield* McpClient.make({ name: "ratings-tests", version: "1.0.0" }).pipe(
      Effect.provideService(McpClient.Transport, transport)
    )
    const tools = yield* client.listTools()
    return {
      tools,
      serverInfo: client.serverInfo,
      call: (name, args = {}) =>
        Effect.gen(function* () {
          const tool = tools.find((t) => t.name === name)
          if (tool === undefined) return yield* Effect.die(`no tool ${name} in tools/list`)
          const result = yield* client.callTool({ tool, arguments: args })
          return {
            text: result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n"),
            structured: result.structuredContent,
            isError: result.isError === true
          }
        })
    }
  })
