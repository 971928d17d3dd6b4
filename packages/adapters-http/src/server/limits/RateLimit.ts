/**
 * The request rate limiter: the windows of each kind of caller are the
 * domain's access policy (domain access/RequestLimits.ts), which the
 * configuration may replace per kind; coverage requests and MCP sessions
 * have allowances of their own per client address. Counters live in memory
 * (one process: MemoryStore.ts, drawn at once) or in Redis when a URL is
 * configured (shared by every server process: SharedStore.ts, whose outages
 * each kind of limit meets by its own policy, open or closed). Every limit is
 * written once (Allowances.ts) over the store's one primitive (Counters.ts).
 * A refused request is a 429 with `Retry-After` and
 * `{"detail": {"error": "rate_limited", "retry_after": N}}`.
 */
import {
  CoverageRequestAllowance,
  type RateLimitTable,
  type RateWindow,
  RequestRateLimits
} from "@ratings/domain/access/RequestLimits"
import type { Caller, CallerKind } from "@ratings/domain/model/Caller"
import { Context, Duration, Effect, Layer } from "effect"
import type { HttpServerRequest } from "effect/http"
import { RateLimiter } from "effect/persistence"
import type { RateLimitedError, ServiceUnavailableError } from "../../api/Errors.ts"
import * as Step from "../admission/Step.ts"
import {
  type Allowance,
  drawAllowance,
  drawFailedCredential,
  drawRequest,
  type Enact,
  enact,
  type Limits,
  readAllowance,
  readFailedCredentials
} from "./Allowances.ts"
import { type Counters, memoryCounters, sharedCounters } from "./Counters.ts"
import { MemoryStore } from "./MemoryStore.ts"
import {
  DefaultRedisKeyPrefix,
  DefaultStoreFailurePolicies,
  DefaultStoreTimeout,
  layerStoreRedis,
  type StoreFailurePolicies,
  type StoreStatus
} from "./SharedStore.ts"
import { policyHeader } from "./Windows.ts"

export type { Allowance, Allowed, Denied, Enact, LimitError } from "./Allowances.ts"
export { makeMemoryCounters, MemoryStore } from "./MemoryStore.ts"
export {
  DefaultRedisKeyPrefix,
  DefaultStoreFailurePolicies,
  DefaultStoreTimeout,
  type LimitKind,
  LimitKindLabels,
  LimitKinds,
  StoreDownRetryAfterSeconds,
  type StoreFailurePolicies,
  type StoreFailurePolicy,
  StoreProbeEvery,
  type StoreStatus
} from "./SharedStore.ts"
export { addressKey, subjectOf } from "./Subjects.ts"
export { policyHeader, RateLimitHeaders, secondsUntil } from "./Windows.ts"

export type { RateLimitTable, RateWindow }

/** The windows of coverage requests (POST /contacts) per client address: the domain's allowance. */
export const ProductionContactLimits: ReadonlyArray<RateWindow> = [CoverageRequestAllowance]

/**
 * MCP sessions opened at /mcp (an `initialize` without a session): 60 an hour
 * per client address, whoever opens them, on a counter of their own (the tool
 * calls a session makes are counted as API requests of its caller). The
 * endpoint keeps a bounded number of sessions (adapters-mcp McpEndpoint.ts):
 * without this an address could push every other client's session out.
 */
export const ProductionMcpSessionLimits: ReadonlyArray<RateWindow> = [{ limit: 60, window: "1 hour" }]

export interface RateLimitConfig {
  /** A Redis URL (`redis://host:6379`): counters shared by every process using it. In memory otherwise. */
  readonly redisUrl?: string | undefined
  /** Prefix of the Redis keys, so that several deployments (or test runs) can share one Redis. */
  readonly redisKeyPrefix?: string | undefined
  /** Per caller kind, replaces the domain's windows of that kind (RequestRateLimits). */
  readonly limits?: Partial<RateLimitTable> | undefined
  /** The windows of coverage requests per client address; ProductionContactLimits when absent. */
  readonly contacts?: ReadonlyArray<RateWindow> | undefined
  /** The windows of MCP sessions opened per client address; ProductionMcpSessionLimits when absent. */
  readonly mcpSessions?: ReadonlyArray<RateWindow> | undefined
  /** How long a call to the shared store may take before it counts as failed; DefaultStoreTimeout when absent. */
  readonly storeTimeout?: Duration.Input | undefined
  /** Per kind of limit, what it does while the shared store cannot be reached; DefaultStoreFailurePolicies for the rest. */
  readonly onStoreFailure?: Partial<StoreFailurePolicies> | undefined
}

/** A limit's decision for one request, as a Step (at once on the memory store). */
type Decide<A> = (input: A) => Step.Step<Allowance>

/** A limit enacted on the current request: its headers on the response; 429, or 503 while its store is down and it fails closed. */
type Enacted<A> = (
  input: A
) => Effect.Effect<void, RateLimitedError | ServiceUnavailableError, HttpServerRequest.HttpServerRequest>

/** The limiter's decisions, as data, and how an allowance is enacted on a response. */
export interface LimiterSteps {
  /** The caller's request rate: one request drawn (the caller picks the counter and the windows). */
  readonly drawRequest: Decide<Caller>
  /** The address's failed credentials, read: denied once they have used the anonymous allowance. */
  readonly readFailedCredentials: Decide<string>
  /** A credential from the address failed: counted like an anonymous request, and as a failure. */
  readonly drawFailedCredential: Decide<string>
  /** A coverage request (POST /contacts) drawn from the address's allowance. */
  readonly drawContact: Decide<string>
  /** An MCP session opened at /mcp, drawn from the address's allowance. */
  readonly drawMcpSession: Decide<string>
  /** The address's MCP-session allowance, read: denied once it is used. */
  readonly readMcpSessions: Decide<string>
  /** The allowance on the current response: its headers, and a denial's error. */
  readonly enact: Enact
  /** The shared store's state (read at /metrics); undefined for the memory store, which cannot fail. */
  readonly storeStatus: () => StoreStatus | undefined
}

/** The decisions enacted on the current request, for handlers written as effects. */
export interface LimiterEffects {
  /** `drawRequest`, enacted. */
  readonly check: Enacted<Caller>
  /** `readFailedCredentials`, enacted: counts nothing, so a valid key or token from the address costs it nothing. */
  readonly admitCredential: Enacted<string>
  /** `drawFailedCredential`, enacted. */
  readonly countFailedCredential: Enacted<string>
  /** `drawContact`, enacted: the response carries the coverage-request windows' headers. */
  readonly checkContact: Enacted<string>
  /** `drawMcpSession`, enacted. */
  readonly checkMcpSession: Enacted<string>
  /** `readMcpSessions`, enacted: counts nothing; the session is drawn (`checkMcpSession`) once it is opened. */
  readonly admitMcpSession: Enacted<string>
}

/** The effects over the steps: each makes its decision when it runs, and enacts it with the steps' `enact`. */
export const effectsOf = (steps: LimiterSteps): LimiterEffects => {
  const enacted =
    <A>(decide: Decide<A>): Enacted<A> =>
    (input) =>
      Effect.flatMap(
        Step.suspend(() => decide(input)),
        (allowance) => steps.enact(allowance)
      )
  return {
    check: enacted(steps.drawRequest),
    admitCredential: enacted(steps.readFailedCredentials),
    countFailedCredential: enacted(steps.drawFailedCredential),
    checkContact: enacted(steps.drawContact),
    checkMcpSession: enacted(steps.drawMcpSession),
    admitMcpSession: enacted(steps.readMcpSessions)
  }
}

/** The limiter's steps over `counters`, for a configuration. */
const stepsOver = (counters: Counters, config: RateLimitConfig): LimiterSteps => {
  const table: RateLimitTable = { ...RequestRateLimits, ...config.limits }
  const policies = Object.fromEntries(
    Object.entries(table).map(([kind, windows]) => [kind, policyHeader(windows)])
  ) as { readonly [K in CallerKind]: string }
  const onStoreFailure = { ...DefaultStoreFailurePolicies, ...config.onStoreFailure }
  const limits: Limits = { counters, table, policies, onStoreFailure }
  const contacts = config.contacts ?? ProductionContactLimits
  const mcpSessions = config.mcpSessions ?? ProductionMcpSessionLimits
  return {
    drawRequest: drawRequest(limits),
    readFailedCredentials: readFailedCredentials(limits),
    drawFailedCredential: drawFailedCredential(limits),
    drawContact: drawAllowance(limits, "contacts", "contact:", contacts),
    drawMcpSession: drawAllowance(limits, "mcpSessions", "mcp:", mcpSessions),
    readMcpSessions: readAllowance(limits, "mcpSessions", "mcp:", mcpSessions),
    enact,
    storeStatus: () => counters.guard?.status()
  }
}

export class RequestRateLimiter extends Context.Service<RequestRateLimiter, LimiterSteps & LimiterEffects>()(
  "@ratings/adapters-http/RequestRateLimiter"
) {
  /** The limiter over `counters`. */
  static readonly over = (counters: Counters, config: RateLimitConfig): RequestRateLimiter["Service"] => {
    const steps = stepsOver(counters, config)
    return RequestRateLimiter.of({ ...steps, ...effectsOf(steps) })
  }

  /**
   * The limiter over the store behind the RateLimiter in context (Redis in
   * production), through a breaker whose probe runs in the limiter's scope.
   */
  static readonly make = (config: RateLimitConfig) =>
    Effect.map(
      sharedCounters(Duration.fromInputUnsafe(config.storeTimeout ?? DefaultStoreTimeout), {
        ...DefaultStoreFailurePolicies,
        ...config.onStoreFailure
      }),
      (counters) => RequestRateLimiter.over(counters, config)
    )

  /** The limiter over the MemoryStore in context, at the clock's time: every decision at once. */
  static readonly makeMemory = (config: RateLimitConfig) =>
    Effect.gen(function* () {
      const store = yield* MemoryStore
      const clock = yield* Effect.clockWith(Effect.succeed)
      return RequestRateLimiter.over(
        memoryCounters(store, () => clock.currentTimeMillisUnsafe()),
        config
      )
    })

  /**
   * The limiter over its store: Redis when `redisUrl` is set (the layer fails
   * to build when Redis cannot be reached, so a misconfigured deployment does
   * not start), memory otherwise.
   */
  static readonly layer = (config: RateLimitConfig = {}) =>
    config.redisUrl === undefined
      ? Layer.effect(RequestRateLimiter, RequestRateLimiter.makeMemory(config)).pipe(
          Layer.provide(MemoryStore.layer)
        )
      : Layer.effect(RequestRateLimiter, RequestRateLimiter.make(config)).pipe(
          Layer.provide(RateLimiter.layer),
          Layer.provide(layerStoreRedis(config.redisUrl, config.redisKeyPrefix ?? DefaultRedisKeyPrefix))
        )
}
