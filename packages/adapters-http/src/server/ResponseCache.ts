/**
 * The projection cache of the hot public reads (entity lists, details,
 * scorecard lists): the already-encoded response, body bytes and strong ETag
 * computed once, served to every caller who sees the same projection. A hit
 * runs no query, no schema encoding and no hashing; the caller policies
 * (authentication, rate limit, attribution, cache headers, 304) run around it
 * as on any request, and Caching.ts reuses the ETag the response carries.
 *
 * - Keys: the route and its normalised parameters (built by the handlers)
 *   plus the caller's projection class. Anonymous and Free callers see the
 *   same projection; Pro and Enterprise another; an admin's (drafts, bypass
 *   flags) is never cached.
 * - The schema stays the contract: the bytes are the endpoint's own success
 *   codec (what HttpApiBuilder encodes with) run through `JSON.stringify`, as
 *   the builder does, so a hit is byte-identical to the uncached route.
 * - Errors are never cached: only a computed value is encoded and stored.
 * - Concurrent misses of one key share one computation (see `flights`).
 * - Invalidation (docs/adr/0007-projection-cache.md): `layerInvalidatedBy`
 *   listens to the changes of every process (Postgres LISTEN/NOTIFY in the
 *   server) and drops what each change touches; while it is not listening the
 *   cache is off (every request computes) and it starts empty each time it
 *   listens again, since changes may have been missed meanwhile. A process
 *   that changes data itself calls `invalidate` before answering.
 * - Bounded: LRU by entries and bytes, and a TTL as a safety net.
 */
import { type Caller, callerKind } from "@ratings/domain/model/Caller"
import type { EntityType } from "@ratings/domain/model/EntityType"
import {
  Context,
  Deferred,
  Duration,
  Effect,
  Exit,
  Layer,
  PubSub,
  type Schema as S,
  Schema,
  type Scope,
  Stream
} from "effect"
import { HttpServerResponse } from "effect/http"
import { entityTag } from "./Caching.ts"
import { type EntityChange, ProjectionStore, type StoreStats } from "./ProjectionStore.ts"

export { AllOfType, type EntityChange } from "./ProjectionStore.ts"

/** Callers who see the same projection of every cacheable route share one class. */
export type ProjectionClass = "public" | "full"

/**
 * Anonymous and Free callers see the same lists, details and scorecard lists
 * (the latest published scorecard, domain_scores and mvc_gates null); Pro and
 * Enterprise see the full published history. An admin sees drafts and honours
 * the bypass flags: never cached (undefined).
 */
export const projectionClassOf = (caller: Caller): ProjectionClass | undefined => {
  switch (callerKind(caller)) {
    case "anonymous":
    case "free":
      return "public"
    case "pro":
    case "enterprise":
      return "full"
    case "admin":
      return undefined
  }
}

export interface ResponseCacheConfig {
  /** Most responses held (default 20,000). */
  readonly maxEntries?: number | undefined
  /** Most body bytes held, keys and a fixed overhead per entry included (default 64 MiB). */
  readonly maxBytes?: number | undefined
  /** Longest a response is served without being recomputed, whatever happens (default 5 minutes). */
  readonly ttl?: Duration.Input | undefined
}

export const DefaultMaxEntries = 20_000
export const DefaultMaxBytes = 64 * 1024 * 1024
export const DefaultTtl = Duration.minutes(5)

/** Bytes an entry is charged beyond its body and key: the response object, its headers and the indexes. */
const EntryOverhead = 256

/** One cacheable read: what identifies it, how to compute it, and what it depends on. */
export interface Cacheable<A, E> {
  readonly caller: Caller
  /** The route and its normalised parameters; the projection class is added to it here. */
  readonly key: string
  readonly type: EntityType
  /** The endpoint's success codec, the one HttpApiBuilder encodes the value with. */
  readonly schema: S.Top
  /** Called only on a miss (or when the read is not cached): a hit builds no query at all. */
  readonly compute: () => Effect.Effect<A, E>
  /** The one entity the value shows; undefined when it depends on every entity of the type (a list). */
  readonly entityOf: (value: A) => string | undefined
}

export interface ResponseCacheStats extends StoreStats {
  /** Whether responses are served from the cache now (off while changes are not being listened to). */
  readonly active: boolean
}

type Encoder = (value: unknown) => Effect.Effect<Uint8Array>

/** A miss under way; it fails (with nothing) when its computation did. */
interface Flight {
  readonly type: EntityType
  readonly done: Deferred.Deferred<HttpServerResponse.HttpServerResponse, void>
}

const encoders = new WeakMap<S.Top, Encoder>()

/** The success codec, then `JSON.stringify`: HttpApiBuilder's encoding of a JSON success. */
const encoderOf = (schema: S.Top): Encoder => {
  let encoder = encoders.get(schema)
  if (encoder === undefined) {
    const encode = Schema.encodeUnknownEffect(schema) as (
      value: unknown
    ) => Effect.Effect<unknown, S.SchemaError>
    // A value that does not encode is our bug, a 500 as on the uncached path.
    encoder = (value) =>
      Effect.map(Effect.orDie(encode(value)), (encoded) => Buffer.from(JSON.stringify(encoded), "utf8"))
    encoders.set(schema, encoder)
  }
  return encoder
}

/** The response a cached body is served as: JSON, with its strong ETag computed once. */
export const encodedResponse = (body: Uint8Array): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.uint8Array(body, { contentType: "application/json", headers: { etag: entityTag(body) } })

export class ResponseCache extends Context.Service<
  ResponseCache,
  {
    /**
     * The cached response of the read for the caller's projection class, or
     * (on a miss) the computed value encoded into a response that is stored
     * for the next caller of the class. An admin's read, or any read while the
     * cache is off, is computed and returned as a value, for the route to
     * encode as usual. Failures pass through and are never stored.
     */
    readonly respond: <A, E>(
      read: Cacheable<A, E>
    ) => Effect.Effect<A | HttpServerResponse.HttpServerResponse, E>
    /** Drops what a change invalidates, in this process, before the call returns. */
    readonly invalidate: (change: EntityChange) => Effect.Effect<void>
    /** Drops everything. */
    readonly clear: Effect.Effect<void>
    readonly stats: Effect.Effect<ResponseCacheStats>
    /** Every change applied from now on, once its entries are dropped (for tests and metrics). */
    readonly applied: Effect.Effect<PubSub.Subscription<EntityChange>, never, Scope.Scope>
  }
>()("@ratings/adapters-http/ResponseCache") {
  /** A cache that is always on, invalidated only through `invalidate` (one process that makes every change). */
  static readonly layer = (config: ResponseCacheConfig = {}): Layer.Layer<ResponseCache> =>
    Layer.effect(
      ResponseCache,
      Effect.map(makeCache(config, true), (cache) => cache.service)
    )

  /**
   * A cache invalidated by a stream of changes from every process.
   * `subscribe` starts listening and returns the stream once listening is
   * confirmed; the cache is on from then until the stream fails or ends, and
   * then off (and emptied) until a new subscription, retried with a growing
   * delay (up to 30 s). The layer is built once the first subscription
   * succeeded or failed.
   */
  static readonly layerInvalidatedBy = <E, R>(
    subscribe: Effect.Effect<Stream.Stream<EntityChange, E>, E, R>,
    config: ResponseCacheConfig = {}
  ): Layer.Layer<ResponseCache, never, Exclude<R, Scope.Scope>> =>
    Layer.effect(
      ResponseCache,
      Effect.gen(function* () {
        const cache = yield* makeCache(config, false)
        const firstAttempt = yield* Deferred.make<void>()
        const listen = Effect.scoped(
          Effect.gen(function* () {
            const changes = yield* subscribe
            cache.activate()
            yield* Deferred.succeed(firstAttempt, undefined)
            yield* Effect.logInfo("response cache on: listening for changes")
            yield* Stream.runForEach(changes, cache.apply)
          })
        )
        const supervise = Effect.gen(function* () {
          let delay = 250
          while (true) {
            const exit = yield* Effect.exit(listen)
            const wasActive = cache.deactivate()
            yield* Deferred.succeed(firstAttempt, undefined)
            yield* Effect.logWarning(
              "response cache off: not listening for changes; retrying",
              Exit.isFailure(exit) ? exit.cause : "the stream of changes ended"
            )
            delay = wasActive ? 250 : Math.min(delay * 2, 30_000)
            yield* Effect.sleep(Duration.millis(delay))
          }
        })
        yield* Effect.forkScoped(supervise)
        yield* Deferred.await(firstAttempt)
        return cache.service
      })
    ) as Layer.Layer<ResponseCache, never, Exclude<R, Scope.Scope>>
}

/** The cache and the switches its invalidation source drives. */
const makeCache = (config: ResponseCacheConfig, alwaysOn: boolean) =>
  Effect.gen(function* () {
    const store = new ProjectionStore<HttpServerResponse.HttpServerResponse>({
      maxEntries: config.maxEntries ?? DefaultMaxEntries,
      maxBytes: config.maxBytes ?? DefaultMaxBytes,
      ttlMillis: Duration.toMillis(Duration.fromInputUnsafe(config.ttl ?? DefaultTtl))
    })
    const changes = yield* PubSub.unbounded<EntityChange>()
    let active = alwaysOn
    /**
     * Misses of one key under way: later callers wait for the first one's
     * response instead of running the same query (a burst after an
     * invalidation costs one query). A change of the type forgets them, so a
     * read that begins after the change never waits for one begun before it.
     */
    const flights = new Map<string, Flight>()

    const apply = (change: EntityChange) =>
      Effect.suspend(() => {
        store.invalidate(change)
        for (const [key, flight] of flights) if (flight.type === change.entity_type) flights.delete(key)
        return PubSub.publish(changes, change)
      })

    const computeAndStore = <A, E>(read: Cacheable<A, E>, key: string) =>
      Effect.clockWith((clock) => {
        const ticket = store.ticket()
        return Effect.flatMap(read.compute(), (value) =>
          Effect.map(encoderOf(read.schema)(value), (body) => {
            const response = encodedResponse(body)
            store.set(
              key,
              response,
              body.byteLength + key.length * 2 + EntryOverhead,
              { type: read.type, entityId: read.entityOf(value) },
              ticket,
              clock.currentTimeMillisUnsafe()
            )
            return response
          })
        )
      })

    const lead = <A, E>(read: Cacheable<A, E>, key: string) => {
      const flight: Flight = { type: read.type, done: Deferred.makeUnsafe() }
      flights.set(key, flight)
      return computeAndStore(read, key).pipe(
        Effect.onExit((exit) =>
          Effect.sync(() => {
            if (flights.get(key) === flight) flights.delete(key)
            // A failure is not shared: each waiter then computes its own answer.
            const outcome: Exit.Exit<HttpServerResponse.HttpServerResponse, void> = Exit.isSuccess(exit)
              ? Exit.succeed(exit.value)
              : Exit.fail(undefined)
            Deferred.doneUnsafe(flight.done, outcome)
          })
        )
      )
    }

    const respond = <A, E>(read: Cacheable<A, E>) => {
      const projection = projectionClassOf(read.caller)
      if (projection === undefined || !active) return read.compute()
      const key = `${projection}|${read.key}`
      return Effect.clockWith((clock) => {
        const hit = store.get(key, clock.currentTimeMillisUnsafe())
        if (hit !== undefined) return Effect.succeed(hit)
        const flight = flights.get(key)
        if (flight === undefined) return lead(read, key)
        return Effect.catch(Deferred.await(flight.done), () => computeAndStore(read, key))
      })
    }

    const service = ResponseCache.of({
      respond,
      invalidate: (change) => Effect.asVoid(apply(change)),
      clear: Effect.sync(() => {
        store.clear()
        flights.clear()
      }),
      stats: Effect.sync(() => ({ ...store.stats(), active })),
      applied: PubSub.subscribe(changes)
    })

    return {
      service,
      apply: (change: EntityChange) => Effect.asVoid(apply(change)),
      /** Listening is confirmed: start empty, since changes may have been missed while off. */
      activate: () => {
        store.clear()
        flights.clear()
        active = true
      },
      /** Not listening: off and empty. Returns whether it was on. */
      deactivate: (): boolean => {
        const was = active
        active = false
        store.clear()
        flights.clear()
        return was
      }
    }
  })
