/**
 * An MCP client for the tests (Effect's McpClient, as an agent host would use
 * one): over stdio it starts the real `ratings mcp` process with the API URL
 * and key in its environment; over HTTP it posts to a server's /mcp with the
 * caller's Authorization (and, for tests of the anonymous allowance, an
 * X-Forwarded-For header a server with TRUST_PROXY reads the address from).
 */
import { NodeServices } from "@effect/platform-node"
import { Effect, type Scope } from "effect"
import { McpClient, McpProtocol, type McpSchema } from "effect/ai"
import { FetchHttpClient } from "effect/http"
import { ChildProcess } from "effect/process"
import { cliEnv, MainScript } from "./CliHarness.ts"

export type Transport = "stdio" | "http"

export interface SessionOptions {
  /** The server's origin, such as http://127.0.0.1:8080. */
  readonly origin: string
  /** An API key (or token), sent as the caller's; none: anonymous. */
  readonly key?: string | undefined
  /** HTTP only: sent as X-Forwarded-For. */
  readonly forwardedFor?: string | undefined
  readonly protocol?: McpProtocol.ProtocolAdapter<McpClient.ProtocolVersion> | undefined
  /** stdio only: more environment for `ratings mcp` (branding, say). */
  readonly env?: Record<string, string | undefined> | undefined
}

/** A connected client, for the scope: `ratings mcp` started (stdio) or /mcp initialized (HTTP). */
export const session = (
  transport: Transport,
  options: SessionOptions
): Effect.Effect<McpClient.McpClient, unknown, Scope.Scope> => {
  const protocol = options.protocol ?? McpProtocol.v2025_11_25
  const connection =
    transport === "stdio"
      ? McpClient.stdio({
          protocol,
          command: ChildProcess.make(process.execPath, [MainScript, "mcp"], {
            env: cliEnv({
              RATINGS_API_URL: `${options.origin}/api/v1`,
              RATINGS_API_KEY: options.key,
              ...options.env
            }),
            extendEnv: false
          })
        }).pipe(Effect.provide(NodeServices.layer))
      : McpClient.http({
          protocol,
          url: `${options.origin}/mcp`,
          headers: {
            ...(options.key === undefined ? {} : { authorization: `Bearer ${options.key}` }),
            ...(options.forwardedFor === undefined ? {} : { "x-forwarded-for": options.forwardedFor })
          }
        }).pipe(Effect.provide(FetchHttpClient.layer))
  return Effect.flatMap(connection, (t) =>
    McpClient.make({ name: "ratings-tests", version: "1.0.0" }).pipe(
      Effect.provideService(McpClient.Transport, t)
    )
  )
}

export interface ToolReply {
  readonly text: string
  // biome-ignore lint/suspicious/noExplicitAny: structured content is probed field by field
  readonly structured: any
  readonly isError: boolean
}

/** Calls a listed tool and reads its answer: the text of its content, its structured content, isError. */
export const callTool = (
  client: McpClient.McpClient,
  tools: ReadonlyArray<McpSchema.Tool>,
  name: string,
  args: Record<string, unknown> = {}
): Effect.Effect<ToolReply, unknown> =>
  Effect.gen(function* () {
    const tool = tools.find((t) => t.name === name)
    if (tool === undefined) return yield* Effect.die(`no tool ${name} in tools/list`)
    const result = yield* client.callTool({ tool, arguments: args })
    const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n")
    return { text, structured: result.structuredContent, isError: result.isError === true }
  })
