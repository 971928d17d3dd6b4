/**
 * The service's MCP server on Effect's MCP support (`effect/ai` McpServer):
 * the tools of RatingsTools.ts, each answered by ToolHandlers.ts over the
 * typed client of the HTTP contract. Where that client's requests go is the
 * transport's choice (RatingsApiAccess): `ratings mcp` (stdio) sends them to
 * the configured API with the configured key; /mcp (`mcpRoutes`) answers them
 * in this process on behalf of the caller of /mcp (InProcessClient.ts), so
 * the caller's tier, visibility and rate limits apply. A tool's answer is its
 * text (ToolText.ts) with the same data as structured content; arguments,
 * read under the live names (ToolArguments.ts), that do not decode are an
 * answer saying what was wrong (isError), as 422s are. serverInfo is the brand.
 */
import { Capabilities } from "@ratings/domain/access/Capabilities"
import type { Tier } from "@ratings/domain/model/Caller"
import { Branding, DefaultBranding, ServiceName } from "@ratings/domain/model/ServiceInfo"
import { Cause, Context, Effect, Layer, Schema } from "effect"
import { McpProtocol, McpSchema, McpServer, Tool } from "effect/ai"
import { HttpClient, HttpRouter, HttpServerRequest } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { ApiVersion, RatingsApi } from "@ratings/adapters-http/api/Api"
import { AttributionHeader } from "@ratings/adapters-http/server/Attribution"
import { InProcessBaseUrl, inProcessClient, onBehalfOf } from "./InProcessClient.ts"
import { McpPath, mountMcp } from "./McpEndpoint.ts"
import { RatingsToolkit, type RatingsToolName } from "./RatingsTools.ts"
import { type ToolRun, ToolRuns } from "./ToolHandlers.ts"
import { liveArgumentsOf } from "./ToolArguments.ts"
import { invalidArgumentsOf, refusal, UnexpectedAnswer } from "./ToolRefusals.ts"
import type { ToolAnswer } from "./ToolText.ts"

/** Where the typed client of a tool call sends its requests, and as whom. */
export class RatingsApiAccess extends Context.Service<
  RatingsApiAccess,
  {
    /** The HTTP client of the current tool call (it carries the caller's credentials). */
    readonly client: Effect.Effect<HttpClient.HttpClient, ToolAnswer>
    /** The API's origin: the typed client adds /api/v1 and the route. */
    readonly baseUrl: string
  }
>()("@ratings/adapters-mcp/RatingsApiAccess") {}

/**
 * The serverInfo name of a brand: its service name in lower-case kebab form
 * ("DeFi Risk Ratings" is defi-risk-ratings), as MCP names are written.
 */
export const serverNameOf = (branding: Branding): string =>
  branding.serviceName
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "") || "ratings"

export const ServerName = serverNameOf(DefaultBranding)

const instructionsOf = (branding: Branding) =>
  "Letter grades (AAA best to D) and scorecards of DeFi protocols, chains, tokens, oracles, vaults, " +
  "organisations and bridges, with hack incidents and post-quantum readiness of chains. Find an entity with " +
  "search_ratings or list_ratings, then read it with get_rating (and get_rating_breakdown with a Pro key). " +
  `Free and anonymous use must name ${branding.serviceName === ServiceName ? "the service" : branding.serviceName} ` +
  "as the data source: each answer ends with the attribution to show."

export const ServerInstructions = instructionsOf(DefaultBranding)

/** What the server says it is at initialize, under the operator's brand (the domain's Branding). */
export const serverInfoOf = (branding: Branding) => ({
  name: serverNameOf(branding),
  version: ApiVersion,
  description: `${branding.serviceName}: ratings of DeFi protocols and the rest, for AI agents`,
  websiteUrl: branding.siteUrl,
  instructions: instructionsOf(branding)
})

/** What a tool's refusal calls its data, and the tier its route needs (a 401 body does not say it). */
const Gated: { readonly [Name in RatingsToolName]?: readonly [string, Tier] } = {
  get_rating_breakdown: ["The domain breakdown (get_rating_breakdown)", Capabilities.domains]
}

/** The answer as a tool result; data shown to an anonymous or Free caller ends with the API's attribution. */
const resultOf = (answer: ToolAnswer, received: string | undefined) => {
  const attribution = answer.isError === true ? undefined : received
  const attributed = attribution !== undefined && !answer.text.includes(attribution)
  return new McpSchema.CallToolResult({
    content: [{ type: "text", text: attributed ? `${answer.text}\n\n${attribution}` : answer.text }],
    ...(answer.structured === undefined
      ? {}
      : {
          structuredContent:
            attribution === undefined ? answer.structured : { ...answer.structured, attribution }
        }),
    ...(answer.isError === true ? { isError: true } : {})
  })
}

const descriptorOf = (tool: (typeof RatingsToolkit.tools)[RatingsToolName]) =>
  new McpSchema.Tool({
    name: tool.name,
    title: Context.getOrUndefined(tool.annotations, Tool.Title),
    description: Tool.getDescription(tool),
    inputSchema: Tool.getJsonSchema(tool) as McpSchema.Tool["inputSchema"],
    annotations: {
      title: Context.getOrUndefined(tool.annotations, Tool.Title),
      readOnlyHint: Context.get(tool.annotations, Tool.Readonly),
      destructiveHint: Context.get(tool.annotations, Tool.Destructive),
      idempotentHint: Context.get(tool.annotations, Tool.Idempotent),
      openWorldHint: Context.get(tool.annotations, Tool.OpenWorld)
    }
  })

/** One tool call: its arguments decoded, the typed client made for the call, the answer. */
const call = <Name extends RatingsToolName>(
  name: Name,
  access: RatingsApiAccess["Service"],
  payload: unknown
) => {
  const tool = RatingsToolkit.tools[name]
  const run = ToolRuns[name] as ToolRun<RatingsToolName>
  const [what, tier] = Gated[name] ?? ["This tool", "anonymous" as Tier]
  return Effect.gen(function* () {
    const live = liveArgumentsOf(name, payload ?? {})
    if (live._tag === "Refused") return yield* Effect.fail(live.answer)
    const args = yield* Schema.decodeUnknownEffect(tool.parametersSchema as Schema.Codec<unknown>)(
      live.args.payload,
      {
        errors: "all",
        onExcessProperty: "ignore"
      }
    ).pipe(Effect.mapError((error) => invalidArgumentsOf(error.message, live.args.writtenAs)))
    const http = yield* access.client
    let attribution: string | undefined
    const api = yield* HttpApiClient.makeWith(RatingsApi, {
      httpClient: HttpClient.tap(http, (response) =>
        Effect.sync(() => {
          attribution ??= response.headers[AttributionHeader]
        })
      ),
      baseUrl: access.baseUrl,
      // A response the contract does not decode is told apart from a request it refuses (ToolRefusals.ts).
      transformResponse: (decoded) =>
        Effect.mapError(decoded, (error) =>
          Schema.isSchemaError(error) ? new UnexpectedAnswer({ cause: error }) : error
        )
    })
    const answer = yield* run(args as never, api).pipe(
      Effect.catch((error) => Effect.succeed(refusal(error, what, tier)))
    )
    return resultOf(answer, attribution)
  }).pipe(
    Effect.catch((answer) => Effect.succeed(resultOf(answer, undefined))),
    Effect.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause)
        ? Effect.failCause(cause as Cause.Cause<never>)
        : Effect.logError(`MCP tool ${name} failed`, cause).pipe(
            Effect.as(
              resultOf({ text: "the tool failed unexpectedly; retry later", isError: true }, undefined)
            )
          )
    )
  )
}

/** Registers every tool with the McpServer, answered over RatingsApiAccess. */
export const RatingsTools = Layer.effectDiscard(
  Effect.gen(function* () {
    const server = yield* McpServer.McpServer
    const access = yield* RatingsApiAccess
    for (const name of Object.keys(RatingsToolkit.tools) as Array<RatingsToolName>) {
      const tool = RatingsToolkit.tools[name]
      yield* server.addTool({
        tool: descriptorOf(tool),
        annotations: tool.annotations,
        handle: (payload) => call(name, access, payload)
      })
    }
  })
)

/** The protocol revisions the server speaks, newest first (hosts negotiate the one they know). */
export const Protocols = [
  McpProtocol.v2026_07_28,
  McpProtocol.v2025_11_25,
  McpProtocol.v2025_06_18,
  McpProtocol.v2025_03_26,
  McpProtocol.v2024_11_05
] as const

/** The stateful revisions only: stdio has one client per process, for which sessions cost nothing. */
export const StdioProtocols = Protocols

/**
 * The streamable HTTP endpoint at /mcp (McpEndpoint.ts), beside the API's
 * routes. Its tools call the API in this process, through the server's
 * router, as the caller of /mcp. `trustedHops`: see McpEndpoint's `mountMcp`.
 */
export const mcpRoutes = (trustedHops: number) =>
  Layer.unwrap(
    Effect.gen(function* () {
      const router = yield* HttpRouter.HttpRouter
      const context = yield* Effect.context<never>()
      let app: ReturnType<HttpRouter.HttpRouter["asHttpEffect"]> | undefined
      const routerApp = () => (app ??= router.asHttpEffect())
      const access = RatingsApiAccess.of({
        client: Effect.flatMap(Effect.serviceOption(HttpServerRequest.HttpServerRequest), (request) =>
          request._tag === "Some"
            ? Effect.succeed(inProcessClient(routerApp, context, onBehalfOf(request.value)))
            : Effect.fail<ToolAnswer>({ text: "the tool was called outside an HTTP request", isError: true })
        ),
        baseUrl: InProcessBaseUrl
      })
      const branding = yield* Branding
      return mountMcp(
        McpServer.layerHttp({
          ...serverInfoOf(branding),
          path: McpPath,
          protocols: Protocols,
          allowSessionTermination: true,
          registrations: RatingsTools.pipe(Layer.provide(Layer.succeed(RatingsApiAccess, access)))
        }),
        trustedHops
      )
    })
  ).pipe(Layer.orDie)
