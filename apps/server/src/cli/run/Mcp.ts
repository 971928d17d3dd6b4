/**
 * What `ratings mcp` does (the command and what it promises: McpCommand.ts):
 * the MCP server over stdio, its tools calling the API through the typed
 * client of the contract, every API call bounded; standard output is the
 * protocol's and everything the command says goes to standard error.
 */
import {
  RatingsApiAccess,
  RatingsTools,
  StdioProtocols,
  serverInfoOf
} from "@ratings/adapters-mcp/RatingsMcpServer"
import { Cause, Config, Console, Effect, Layer, Logger, Option } from "effect"
import { McpServer } from "effect/ai"
import { FetchHttpClient, HttpClient, HttpClientError, HttpClientRequest } from "effect/http"
import { clientBaseOf, McpConfig } from "../../McpConfig.ts"
import { stoppedGracefully } from "../../Shutdown.ts"
import { CommandFailed } from "../CommandFailed.ts"

/** How long one API call may take: the live service's clients give up after 10 s. */
export const ApiCallTimeout = "10 seconds"

/** The HTTP client of the tools: the configured key on every call (when there is one), each call bounded. */
const apiAccess = (config: McpConfig) =>
  Layer.effect(
    RatingsApiAccess,
    Effect.gen(function* () {
      const fetch = yield* HttpClient.HttpClient
      const keyed = Option.match(config.apiKey, {
        onNone: () => fetch,
        onSome: (key) => HttpClient.mapRequest(fetch, HttpClientRequest.bearerToken(key))
      })
      const client = HttpClient.transform(keyed, (response, request) =>
        Effect.timeoutOrElse(response, {
          duration: ApiCallTimeout,
          orElse: () =>
            Effect.fail(
              new HttpClientError.HttpClientError({
                reason: new HttpClientError.TransportError({
                  request,
                  description: `no answer within ${ApiCallTimeout}`
                })
              })
            )
        })
      )
      return RatingsApiAccess.of({ client: Effect.succeed(client), baseUrl: clientBaseOf(config.apiUrl) })
    })
  ).pipe(Layer.provide(FetchHttpClient.layer))

/**
 * A setting refused at start, one line per problem: `RATINGS_API_URL: must be
 * an http or https URL` (the schema's message, `... at ["RATINGS_API_URL"]`).
 */
export const settingProblemsOf = (error: Config.ConfigError): ReadonlyArray<string> =>
  error.cause.message.split(/\n(?=\S)/).map((issue) => {
    const at = /\n\s*at \[(.*)\]\s*$/.exec(issue)
    return at === null
      ? issue.trim()
      : `${at[1]!.replace(/"/g, "").replace(/\]\[/g, ".")}: ${issue.slice(0, at.index).trim()}`
  })

/** What a failure says on standard error: a refused setting in a line of its own, else the cause. */
const failureText = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.findErrorOption(cause)
  if (Option.isSome(error) && error.value instanceof Config.ConfigError)
    return settingProblemsOf(error.value)
      .map((problem) => `ratings mcp: invalid setting ${problem}; the MCP server was not started`)
      .join("\n")
  return `ratings mcp: ${Cause.pretty(cause)}`
}

/**
 * Everything the command says goes to standard error, failures included
 * (a configuration error names its variable there): standard output is the
 * protocol's.
 */
const toStderr = <A, E, R>(command: Effect.Effect<A, E, R>): Effect.Effect<A, E | CommandFailed, R> =>
  command.pipe(
    Effect.catchCause(
      (cause): Effect.Effect<never, E | CommandFailed> =>
        Cause.hasInterruptsOnly(cause)
          ? Effect.failCause(cause)
          : Effect.andThen(
              Console.error(failureText(cause)),
              Effect.fail(new CommandFailed({ message: "failed" }))
            )
    ),
    Effect.provideService(Logger.LogToStderr, true)
  )

export const mcp = Effect.fnUntraced(function* () {
  const config = yield* McpConfig
  const server = McpServer.layerStdio({
    ...serverInfoOf(config.branding),
    protocols: StdioProtocols,
    registrations: RatingsTools.pipe(Layer.provide(apiAccess(config)))
  })
  return yield* Layer.launch(server).pipe(Effect.onInterrupt(() => stoppedGracefully))
}, toStderr)
