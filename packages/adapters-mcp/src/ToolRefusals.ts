/**
 * What the API refused, as a tool's answer: 404 "no rating found", 401/403 on
 * a tiered route the tier needed and how to get a key, 429 when to retry, 422
 * what was wrong, an API that did not answer with the URL tried; arguments a
 * tool's schema refuses, each named.
 */
import type { Tier } from "@ratings/domain/model/Caller"
import { Data, Schema } from "effect"
import { HttpClientError } from "effect/http"
import { InvalidKeyError, InvalidTokenError } from "@ratings/adapters-http/api/Authentication"
import {
  InsufficientTierError,
  MissingKeyError,
  NotFoundError,
  RateLimitedError,
  ServiceUnavailableError,
  ValidationError
} from "@ratings/adapters-http/api/Errors"
import type { ToolAnswer } from "./ToolText.ts"

/** How a caller without the tier a tool needs gets a key: said in every tier explanation. */
export const HowToGetAKey =
  "To get a key, ask the operator of this ratings service for an API key of that tier (operators issue them " +
  "with `ratings keys create --tier pro`). Then give it to your MCP client: RATINGS_API_KEY for `ratings mcp` " +
  "(stdio), or the header `Authorization: Bearer <key>` for the /mcp endpoint."

const tierName = (tier: Tier) => `${tier[0]!.toUpperCase()}${tier.slice(1)}`

const tiersFrom = (tier: Tier) => (tier === "enterprise" ? "an Enterprise" : `a ${tierName(tier)} or higher`)

export const invalidArguments = (what: string): ToolAnswer => ({
  text: `invalid arguments: ${what}`,
  isError: true
})

const tierExplanation = (what: string, required: Tier, current: Tier | undefined): ToolAnswer => ({
  text:
    `${what} needs ${tiersFrom(required)} API key` +
    (current === undefined
      ? "; this call was made without a key."
      : `; the key used is ${current === "anonymous" ? "not a key" : `a ${tierName(current)} key`}.`) +
    ` ${HowToGetAKey}`,
  structured: { needs_tier: required, ...(current === undefined ? {} : { tier: current }) }
})

/** An answer of the API that the contract's schema does not decode (the typed client's response decoding). */
export class UnexpectedAnswer extends Data.TaggedError("UnexpectedAnswer")<{ readonly cause: unknown }> {}

/**
 * A request the contract refuses, before it is sent: the schema's message,
 * `Input should be ...\n  at ["since"]`, as `since: Input should be ...`.
 */
const issuesOf = (message: string) =>
  message.split(/\n(?=\S)/).map((issue) => {
    const at = /\n\s*at \[(.*)\]\s*$/.exec(issue)
    return at === null
      ? { argument: "", msg: issue.trim() }
      : { argument: at[1]!.replace(/"/g, "").replace(/\]\[/g, "."), msg: issue.slice(0, at.index).trim() }
  })

const refused = (
  what: string,
  message: string,
  writtenAs: ReadonlyMap<string, string> = new Map()
): ToolAnswer => {
  const issues = issuesOf(message).map((issue) => {
    const [head, ...rest] = issue.argument.split(".")
    const written = writtenAs.get(head ?? "")
    return written === undefined ? issue : { ...issue, argument: [written, ...rest].join(".") }
  })
  return {
    text: `${what}: ${issues.map((i) => (i.argument === "" ? i.msg : `${i.argument}: ${i.msg}`)).join("; ")}`,
    structured: { invalid: issues },
    isError: true
  }
}

const invalidRequest = (message: string): ToolAnswer => refused("invalid request", message)

/**
 * Arguments the tool's schema refuses, each named as the caller wrote it
 * (`writtenAs`: the older name used for a live one): `invalid arguments: entity_type: Expected ...`.
 */
export const invalidArgumentsOf = (message: string, writtenAs?: ReadonlyMap<string, string>): ToolAnswer =>
  refused("invalid arguments", message, writtenAs)

/** `["query", "since"]` as `since`: where a 422 found the problem, named as the tool's argument. */
const locationOf = (loc: ReadonlyArray<string | number>) =>
  loc.filter((part, index) => !(index === 0 && ["query", "path", "body"].includes(String(part)))).join(".")

/** The messages of an error and of its causes, outermost first: "fetch failed: connect ECONNREFUSED ...". */
const causeMessages = (cause: unknown, depth = 0): Array<string> =>
  cause instanceof Error && depth < 4
    ? [cause.message, ...causeMessages(cause.cause, depth + 1)].filter((m) => m !== "")
    : []

/** Why a request got no answer, as far as the error says: its description and the causes' messages. */
const unreachableReasonOf = (reason: HttpClientError.HttpClientError["reason"]): string => {
  const description = "description" in reason ? reason.description : undefined
  const parts = [...(description === undefined ? [] : [description]), ...causeMessages(reason.cause)]
  return parts.length === 0 ? reason._tag : parts.join(": ")
}

/**
 * What the API refused, as the tool's answer. `what` names the tool's data
 * ("the domain breakdown"), `tier` the tier its route needs.
 */
export const refusal = (error: unknown, what: string, tier: Tier): ToolAnswer => {
  if (error instanceof MissingKeyError) return tierExplanation(what, tier, undefined)
  if (error instanceof InsufficientTierError)
    return tierExplanation(what, error.detail.required_tier, error.detail.tier)
  if (error instanceof RateLimitedError)
    return {
      text: `rate limited, retry after ${error.detail.retry_after} seconds`,
      structured: { rate_limited: true, retry_after: error.detail.retry_after },
      isError: true
    }
  if (error instanceof ValidationError)
    return {
      text: `invalid request: ${error.detail.map((issue) => `${locationOf(issue.loc)}: ${issue.msg}`).join("; ")}`,
      structured: {
        invalid: error.detail.map((issue) => ({ argument: locationOf(issue.loc), msg: issue.msg }))
      },
      isError: true
    }
  if (error instanceof InvalidKeyError || error instanceof InvalidTokenError)
    return {
      text:
        "the API refused the credential sent (401): the key is unknown, revoked or malformed. Check " +
        `RATINGS_API_KEY or the Authorization header, or leave it out to call anonymously. ${HowToGetAKey}`,
      isError: true
    }
  if (error instanceof NotFoundError) return { text: "no rating found", structured: { found: false } }
  if (error instanceof ServiceUnavailableError)
    return { text: "the ratings service is unavailable right now (503); retry later", isError: true }
  if (HttpClientError.isHttpClientError(error)) {
    const status = error.response?.status
    if (status !== undefined)
      return { text: `the ratings API answered ${status} unexpectedly; retry later`, isError: true }
    const url = error.request.url
    return {
      text:
        `the ratings API could not be reached at ${url} (${unreachableReasonOf(error.reason)}); check the API ` +
        "URL (RATINGS_API_URL for `ratings mcp`) and that the service is running, then retry",
      structured: { unreachable: true, url },
      isError: true
    }
  }
  if (error instanceof UnexpectedAnswer)
    return { text: "the ratings API answered in a shape this tool does not know; retry later", isError: true }
  // The typed client checks a request against the contract before sending it, with the API's own messages.
  if (Schema.isSchemaError(error)) return invalidRequest(error.message)
  return { text: "the tool failed unexpectedly; retry later", isError: true }
}
