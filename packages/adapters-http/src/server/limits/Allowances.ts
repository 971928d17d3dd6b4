/**
 * Every limit, written once over the store's one primitive (Counters.ts) as
 * Steps: at once on the memory store, through the effect on a shared store.
 * Each ends in an Allowance, data: allowed, with the headers of its windows,
 * or denied: a 429 with Retry-After once a window is used up, or a 503 while
 * the store cannot be reached and the kind of limit fails closed (open: it is
 * allowed, without headers). `enact` turns an allowance into the response's
 * headers and the error; a decision made ahead (the lane of cache hits) is
 * enacted by the router as it was made.
 */
import type { RateLimitTable, RateWindow } from "@ratings/domain/access/RequestLimits"
import { type Caller, type CallerKind, callerKind } from "@ratings/domain/model/Caller"
import { Effect } from "effect"
import { HttpEffect, type HttpServerRequest, HttpServerResponse } from "effect/http"
import { RateLimitedError, ServiceUnavailableError } from "../../api/Errors.ts"
import * as Step from "../admission/Step.ts"
import type { Counters, Taken } from "./Counters.ts"
import {
  type LimitKind,
  StoreDownRetryAfterSeconds,
  type StoreFailurePolicies,
  type StoreFailurePolicy
} from "./SharedStore.ts"
import { allowanceSubject, anonymousSubject, counterKey, failedSubject, subjectOf } from "./Subjects.ts"
import {
  closestToExhaustion,
  headersOf,
  type LimitHeaders,
  NoHeaders,
  policyHeader,
  RateLimitHeaders,
  type WindowState
} from "./Windows.ts"

export type LimitError = RateLimitedError | ServiceUnavailableError

export interface Allowed {
  readonly _tag: "Allowed"
  readonly headers: LimitHeaders
}

export interface Denied<E = LimitError> {
  readonly _tag: "Denied"
  readonly error: E
  readonly headers: LimitHeaders
  /** The kind of caller whose allowance refused it: how a 429 is counted (Metrics.ts). */
  readonly kind: CallerKind
}

export type Allowance<E = LimitError> = Allowed | Denied<E>

/** What the limits of one limiter share: its counters, its windows per caller kind and their policy headers. */
export interface Limits {
  readonly counters: Counters
  readonly table: RateLimitTable
  readonly policies: { readonly [K in CallerKind]: string }
  readonly onStoreFailure: StoreFailurePolicies
}

export const allowed = (headers: LimitHeaders): Allowed => ({ _tag: "Allowed", headers })

const AllowedWithoutHeaders = allowed(NoHeaders)

const StoreDownHeaders: LimitHeaders = {
  [RateLimitHeaders.retryAfter]: String(StoreDownRetryAfterSeconds),
  "cache-control": "no-store"
}

/** The 503 of a limit that fails closed: the API's service-unavailable answer, never stored, retried later. */
const storeUnavailable = (kind: CallerKind): Denied => ({
  _tag: "Denied",
  error: ServiceUnavailableError.instance,
  headers: StoreDownHeaders,
  kind
})

const rateLimited = (policy: string, limit: number, retryAfter: number, kind: CallerKind): Denied => ({
  _tag: "Denied",
  error: new RateLimitedError({ detail: { error: "rate_limited", retry_after: retryAfter } }),
  headers: headersOf(policy, { limit, remaining: 0, reset: retryAfter }, retryAfter),
  kind
})

/** A limit of `kind` that could not reach its store: its policy, noted for /metrics. */
const withoutStore = (limits: Limits, kind: LimitKind): StoreFailurePolicy => {
  const policy = limits.onStoreFailure[kind]
  limits.counters.guard?.decided(kind, policy)
  return policy
}

/** A draw: the windows drawn, and why it stopped (a window exceeded, the store failed), if it did. */
interface Drawn {
  readonly states: ReadonlyArray<WindowState>
  readonly stop: Exclude<Taken, { readonly _tag: "Taken" }> | undefined
}

/** Draws one request from each window in turn; a window exceeded stops it before the windows after it. */
const draw = (counters: Counters, subject: string, windows: ReadonlyArray<RateWindow>): Step.Step<Drawn> => {
  const states: Array<WindowState> = []
  const from = (i: number): Step.Step<Drawn> => {
    const w = windows[i]
    if (w === undefined) return { states, stop: undefined }
    return Step.flatMap(counters.take(counterKey(subject, w), w, 1), (taken) => {
      if (taken._tag !== "Taken") return { states, stop: taken }
      states.push(taken)
      return from(i + 1)
    })
  }
  return from(0)
}

/** The windows of `subject`, read (0 tokens: counts nothing). */
const read = (
  counters: Counters,
  subject: string,
  windows: ReadonlyArray<RateWindow>
): Step.Step<ReadonlyArray<Taken>> =>
  Step.all(windows.map((w) => counters.take(counterKey(subject, w), w, 0)))

/** The first window read that is used up: its index and the seconds until it resets. */
const usedUp = (reads: ReadonlyArray<Taken>): { readonly i: number; readonly reset: number } | undefined => {
  for (const [i, r] of reads.entries()) {
    if (r._tag === "Taken" && r.remaining < 1) return { i, reset: r.reset }
    if (r._tag === "Exceeded") return { i, reset: r.retryAfter }
  }
  return undefined
}

const unread = (reads: ReadonlyArray<Taken>): boolean => reads.some((r) => r._tag === "StoreFailed")

/**
 * Ends a draw of a limit of `limit` on windows whose policy header is
 * `policy`: their headers, a 429 when one refused; when the store could not
 * be reached, the kind's policy: allowed without headers (open), or a 503.
 */
const conclude = (
  limits: Limits,
  limit: LimitKind,
  policy: string,
  kind: CallerKind,
  states: ReadonlyArray<WindowState>,
  stop: Drawn["stop"]
): Allowance => {
  if (stop?._tag === "StoreFailed")
    return withoutStore(limits, limit) === "open" ? AllowedWithoutHeaders : storeUnavailable(kind)
  if (stop?._tag === "Exceeded") return rateLimited(policy, stop.limit, stop.retryAfter, kind)
  const reported = closestToExhaustion(states)
  return reported === undefined ? AllowedWithoutHeaders : allowed(headersOf(policy, reported))
}

/** The caller's request rate: one request drawn from its counters (the caller picks the counter and windows). */
export const drawRequest =
  (limits: Limits) =>
  (caller: Caller): Step.Step<Allowance> => {
    const kind = callerKind(caller)
    return Step.map(draw(limits.counters, subjectOf(caller), limits.table[kind]), ({ states, stop }) =>
      conclude(limits, "requests", limits.policies[kind], kind, states, stop)
    )
  }

/**
 * Before a credential sent from `address` is checked: denied (429) when the
 * address's failed credentials have used the anonymous allowance, or (503)
 * when they cannot be read and failed credentials fail closed. Counts
 * nothing. While no failed-credential counter can be alive (most requests),
 * none is looked up.
 */
export const readFailedCredentials =
  (limits: Limits) =>
  (address: string): Step.Step<Allowance> => {
    if (!limits.counters.failedMayLive()) return AllowedWithoutHeaders
    const anonymous = limits.table.anonymous
    return Step.map(read(limits.counters, failedSubject(address), anonymous), (reads) => {
      const spent = usedUp(reads)
      if (spent !== undefined)
        return rateLimited(limits.policies.anonymous, anonymous[spent.i]!.limit, spent.reset, "anonymous")
      if (unread(reads) && withoutStore(limits, "failedCredentials") === "closed")
        return storeUnavailable("anonymous")
      return AllowedWithoutHeaders
    })
  }

/**
 * A credential sent from `address` failed: counted like an anonymous request
 * of the address (its windows and headers, 429 once exhausted), and on the
 * address's failed-credential counters that `readFailedCredentials` reads.
 */
export const drawFailedCredential =
  (limits: Limits) =>
  (address: string): Step.Step<Allowance> => {
    const anonymous = limits.table.anonymous
    return Step.flatMap(draw(limits.counters, failedSubject(address), anonymous), (failed) =>
      Step.map(draw(limits.counters, anonymousSubject(address), anonymous), (drawn) => {
        if (failed.stop?._tag === "StoreFailed" || drawn.stop?._tag === "StoreFailed")
          return withoutStore(limits, "failedCredentials") === "open"
            ? AllowedWithoutHeaders
            : storeUnavailable("anonymous")
        const refused = failed.stop?._tag === "Exceeded" ? failed.stop : undefined
        const policy = limits.policies.anonymous
        return conclude(limits, "failedCredentials", policy, "anonymous", drawn.states, drawn.stop ?? refused)
      })
    )
  }

/**
 * One request drawn from an allowance the address has apart from its request
 * rate (`<prefix><address>`), whoever sends it: denied (429) once it is used,
 * and the response's headers are its windows'. Coverage requests
 * (`contact:`) and MCP sessions opened at /mcp (`mcp:`).
 */
export const drawAllowance = (
  limits: Limits,
  kind: LimitKind,
  prefix: string,
  windows: ReadonlyArray<RateWindow>
) => {
  const policy = policyHeader(windows)
  return (address: string): Step.Step<Allowance> =>
    Step.map(draw(limits.counters, allowanceSubject(prefix, address), windows), ({ states, stop }) =>
      conclude(limits, kind, policy, "anonymous", states, stop)
    )
}

/**
 * The allowance of `drawAllowance` read for `address`, nothing drawn: denied
 * (429, with the allowance's headers) when it is used up, so that a request
 * can be refused before its work is done and drawn only once that work is
 * known to count. A store that cannot be reached: a 503 when the kind fails
 * closed; otherwise allowed, and the draw decides (and is the one noted for /metrics).
 */
export const readAllowance = (
  limits: Limits,
  kind: LimitKind,
  prefix: string,
  windows: ReadonlyArray<RateWindow>
) => {
  const policy = policyHeader(windows)
  return (address: string): Step.Step<Allowance> =>
    Step.map(read(limits.counters, allowanceSubject(prefix, address), windows), (reads) => {
      const spent = usedUp(reads)
      if (spent !== undefined) return rateLimited(policy, windows[spent.i]!.limit, spent.reset, "anonymous")
      if (unread(reads) && limits.onStoreFailure[kind] === "closed") {
        withoutStore(limits, kind)
        return storeUnavailable("anonymous")
      }
      return AllowedWithoutHeaders
    })
}

/** The headers go on whatever response the request ends with: success, error, 304 or 429. */
const onResponse = (headers: LimitHeaders) =>
  Object.keys(headers).length === 0
    ? Effect.void
    : HttpEffect.appendPreResponseHandler((_, response) =>
        Effect.succeed(HttpServerResponse.setHeaders(response, headers))
      )

/** How an allowance is enacted on the current response: its headers, and a denial's error. */
export interface Enact {
  <E>(allowance: Denied<E>): Effect.Effect<never, E, HttpServerRequest.HttpServerRequest>
  <E>(allowance: Allowance<E>): Effect.Effect<void, E, HttpServerRequest.HttpServerRequest>
}

export const enact = (<E>(allowance: Allowance<E>) =>
  allowance._tag === "Allowed"
    ? onResponse(allowance.headers)
    : Effect.andThen(onResponse(allowance.headers), Effect.fail(allowance.error))) as Enact
