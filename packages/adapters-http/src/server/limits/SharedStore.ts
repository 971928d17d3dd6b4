/**
 * The rate limiter's shared store (Redis): its client, set up to fail fast,
 * and the breaker in front of it (`makeStoreGuard`). When the store fails or
 * does not answer within its timeout, an outage begins: no request waits on
 * the store until a probe (once a second) answers; each kind of limit
 * decides by its own policy at once: open, served without limit headers;
 * closed, a 503 with `Retry-After` and `no-store` (the caller did nothing
 * wrong: not a 429). The outage is logged once as it begins and once as it
 * ends, and read at /metrics. The memory store needs none of this: it cannot fail.
 */
import { NodeRedis } from "@effect/platform-node"
import { Duration, Effect, Exit, FiberSet, Layer, References } from "effect"
import { RateLimiter } from "effect/persistence"
import {
  type LimitKind,
  LimitKinds,
  type StoreFailurePolicies,
  type StoreFailurePolicy
} from "./StorePolicies.ts"

export const DefaultRedisKeyPrefix = "ratings:ratelimit:"

export {
  DefaultStoreFailurePolicies,
  DefaultStoreTimeout,
  type LimitKind,
  LimitKinds,
  type StoreFailurePolicies,
  type StoreFailurePolicy
} from "./StorePolicies.ts"

/** How often the store is probed during an outage: the outage ends at the first answer. */
export const StoreProbeEvery = Duration.seconds(1)

/** The `Retry-After` of a refusal while the store is unreachable (a few probes later). */
export const StoreDownRetryAfterSeconds = 5

/** What a limit's name is in the log and in /metrics. */
export const LimitKindLabels: { readonly [K in LimitKind]: string } = {
  requests: "requests",
  failedCredentials: "failed_credentials",
  contacts: "contacts",
  mcpSessions: "mcp_sessions"
}

/** The shared store as the limiter last saw it, and what it decided without it (read at /metrics). */
export interface StoreStatus {
  readonly reachable: boolean
  /** When the outage in course began (epoch milliseconds); undefined while the store is reachable. */
  readonly unreachableSince: number | undefined
  /** Per kind of limit, the requests decided without the store since the start: admitted (open) or refused (closed). */
  readonly decidedWithoutStore: {
    readonly [K in LimitKind]: { readonly admitted: number; readonly refused: number }
  }
}

const storeError = (message: string) =>
  new RateLimiter.RateLimiterError({ reason: new RateLimiter.RateLimitStoreError({ message }) })

/** A Redis URL in an error's text is replaced: it may hold a password. */
const withoutUrls = (text: string): string => text.replace(/[a-z][a-z0-9+.-]*:\/\/\S+/gi, "<url>")

const policyLine = (policies: StoreFailurePolicies): string => {
  const of = (policy: StoreFailurePolicy) =>
    LimitKinds.filter((k) => policies[k] === policy)
      .map((k) => LimitKindLabels[k])
      .join(", ")
  const open = of("open")
  const closed = of("closed")
  return [
    ...(open === "" ? [] : [`failing open (served without limit) for ${open}`]),
    ...(closed === "" ? [] : [`failing closed (503) for ${closed}`])
  ].join("; ")
}

/**
 * The circuit breaker in front of a shared store. While the store is
 * reachable a call is bounded by `timeout`, and a call that fails or times
 * out begins an outage; during one, calls fail at once without reaching the
 * store, and a fiber of the limiter's own probes the store every
 * `StoreProbeEvery` until it answers. Each outage is logged once as it
 * begins and once as it ends, with its length; never the store's URL.
 */
export interface StoreGuard {
  readonly call: <A>(
    call: Effect.Effect<A, RateLimiter.RateLimiterError>
  ) => Effect.Effect<A, RateLimiter.RateLimiterError>
  /** Notes a request decided by a limit's policy without the store. */
  readonly decided: (kind: LimitKind, policy: StoreFailurePolicy) => void
  readonly status: () => StoreStatus
}

/**
 * Fails with `timedOut` once `timeout` has passed. A timer that fired late
 * says this process was busy, not that the store was silent: an answer that
 * arrived meanwhile is still waiting to be read, so the deadline is moved by
 * that lateness (once, by at most the timeout) before the call counts as failed.
 */
const lateTolerantDeadline = <E>(
  clock: { readonly currentTimeMillisUnsafe: () => number },
  timeout: Duration.Duration,
  timedOut: Effect.Effect<never, E>
): Effect.Effect<never, E> => {
  const timeoutMillis = Duration.toMillis(timeout)
  return Effect.suspend(() => {
    const started = clock.currentTimeMillisUnsafe()
    return Effect.andThen(
      Effect.sleep(timeout),
      Effect.suspend(() => {
        const late = clock.currentTimeMillisUnsafe() - started - timeoutMillis
        return late > 0
          ? Effect.andThen(Effect.sleep(Duration.millis(Math.min(late, timeoutMillis))), timedOut)
          : timedOut
      })
    )
  })
}

export const makeStoreGuard = Effect.fnUntraced(function* (
  probe: Effect.Effect<unknown, RateLimiter.RateLimiterError>,
  timeout: Duration.Duration,
  policies: StoreFailurePolicies
) {
  const run = yield* FiberSet.makeRuntime<never>()
  const clock = yield* Effect.clockWith(Effect.succeed)
  const timedOut = Effect.fail(storeError(`no answer within ${Duration.format(timeout)}`))
  const unreachable = Effect.fail(storeError("the store is unreachable: not called until a probe answers"))
  const deadline = lateTolerantDeadline(clock, timeout, timedOut)
  const bounded = <A>(call: Effect.Effect<A, RateLimiter.RateLimiterError>) =>
    Effect.raceFirst(call, deadline)
  let downSince: number | undefined
  /** Bumped as each outage begins and ends: a call that began before the change does not begin another. */
  let epoch = 0
  const decided = Object.fromEntries(LimitKinds.map((k) => [k, { admitted: 0, refused: 0 }])) as Record<
    LimitKind,
    { admitted: number; refused: number }
  >
  const iso = (millis: number) => new Date(millis).toISOString()

  const outage = (since: number, reason: string) =>
    Effect.gen(function* () {
      yield* Effect.logWarning(
        `rate-limit store unreachable since ${iso(since)} (${reason}): ${policyLine(policies)}; ` +
          `probing it every ${Duration.format(StoreProbeEvery)}`
      )
      while (true) {
        yield* Effect.sleep(StoreProbeEvery)
        if (Exit.isSuccess(yield* Effect.exit(bounded(probe)))) break
      }
      const now = clock.currentTimeMillisUnsafe()
      downSince = undefined
      epoch++
      yield* Effect.logInfo(
        `rate-limit store reachable again after ${Duration.format(Duration.millis(now - since))} ` +
          `(unreachable since ${iso(since)}): limits hold again`
      )
    })

  const begin = (startedIn: number, error: RateLimiter.RateLimiterError) =>
    Effect.sync(() => {
      if (error.reason._tag !== "RateLimitStoreError" || downSince !== undefined || startedIn !== epoch)
        return
      const since = clock.currentTimeMillisUnsafe()
      downSince = since
      epoch++
      const cause = error.reason.cause
      const reason = withoutUrls(
        cause instanceof Error ? `${error.reason.message}: ${cause.message}` : error.reason.message
      )
      run(outage(since, reason))
    })

  const guard: StoreGuard = {
    call: (call) =>
      Effect.suspend(() => {
        if (downSince !== undefined) return unreachable
        const startedIn = epoch
        return Effect.tapError(bounded(call), (error) => begin(startedIn, error))
      }),
    decided: (kind, policy) => {
      decided[kind][policy === "open" ? "admitted" : "refused"]++
    },
    status: () => ({
      reachable: downSince === undefined,
      unreachableSince: downSince,
      decidedWithoutStore: decided
    })
  }
  return guard
})

/**
 * The Redis client of the shared store (node-redis through Effect's
 * NodeRedis), made to fail fast rather than wait:
 * - commands sent while it reconnects are refused at once, not queued until
 *   Redis is back (`disableOfflineQueue`); it keeps reconnecting (NodeRedis's
 *   backoff, up to about 2 seconds between attempts);
 * - the client's own warnings (one per failed reconnection) are not logged:
 *   the limiter logs each outage once, as it begins and as it ends;
 * - it is destroyed as the layer closes, instead of closed: closing waits for
 *   the replies of commands already sent, which a frozen Redis never sends.
 */
const layerRedis = (url: string) =>
  Layer.effectDiscard(
    Effect.flatMap(NodeRedis.NodeRedis, ({ client }) =>
      Effect.addFinalizer(() =>
        Effect.sync(() => {
          if (client.isOpen) client.destroy()
        })
      )
    )
  ).pipe(
    Layer.provideMerge(
      NodeRedis.layer({ url, disableOfflineQueue: true }).pipe(
        Layer.provide(Layer.succeed(References.MinimumLogLevel, "Error"))
      )
    )
  )

/** Effect's Redis store of counters under `prefix`, over the client above. */
export const layerStoreRedis = (url: string, prefix: string) =>
  RateLimiter.layerStoreRedis({ prefix }).pipe(Layer.provide(layerRedis(url)))
