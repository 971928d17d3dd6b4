/**
 * The projection cache of the hot public reads (entity lists, details,
 * scorecard lists): the already-encoded response, body bytes and strong ETag
 * computed once, served to every caller who sees the same projection. A hit
 * runs no read of the data, no schema encoding and no hashing (only the
 * version check below, shared by concurrent reads); the caller policies
 * (authentication, rate limit, attribution, cache headers, 304) run around it
 * as on any request, and Caching.ts reuses the ETag the response carries.
 *
 * - Keys: the route and its normalised parameters (built by the handlers)
 *   plus the caller's projection class, the domain's `projectionClassOf`
 *   (access/Projection.ts); an admin's reads, of no class, are never cached.
 * - The schema stays the contract: the bytes are the endpoint's own success
 *   codec (what HttpApiBuilder encodes with) run through `JSON.stringify`, as
 *   the builder does, so a hit is byte-identical to the uncached route.
 * - Errors are never cached: only a computed value is encoded and stored.
 * - Concurrent misses of one key share one computation (see `flights`).
 * - Strict across processes (docs/adr/0007-projection-cache.md), when given
 *   a version source (`versions`: one counter per entity type that every
 *   write bumps in its own transaction): each cacheable read first reads the
 *   current versions, from a query sent after the read began, and is served
 *   from the cache only by an entry computed under the same version of its
 *   type; an entry is stamped with the version read before its computation
 *   began. So once a write has committed, no read that begins later gets the
 *   state before it, whatever the notification latency. Concurrent reads share
 *   one version query, but only one sent after each of them began. If the
 *   versions cannot be read, the read is computed (and not stored).
 * - Eager eviction: `layerInvalidatedBy` listens to the changes of every
 *   process (Postgres LISTEN/NOTIFY in the server) and drops what each change
 *   touches. Without a version source the notifications are the only
 *   invalidation: the cache is then off (every request computes) while it is
 *   not listening, and starts empty each time it listens again, since changes
 *   may have been missed meanwhile. A process that changes data itself calls
 *   `invalidate` before answering.
 * - Bounded: LRU by entries and bytes, and a TTL as a safety net.
 */
import { type ProjectionClass, projectionClassOf } from "@ratings/domain/access/Projection"
import { type Caller, type CallerKind, callerKind } from "@ratings/domain/model/Caller"
import type { ChangeTopic } from "@ratings/domain/model/ChangeTopic"
import {
  Context,
  Deferred,
  Duration,
  Effect,
  Exit,
  Layer,
  PubSub,
  Queue,
  type Schema as S,
  Schema,
  type Scope,
  Semaphore,
  Stream
} from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { entityTag } from "./Caching.ts"
import { type EntityChange, ProjectionStore, type StoreStats } from "./ProjectionStore.ts"

export { AllOfType, type EntityChange } from "./ProjectionStore.ts"

export interface ResponseCacheConfig {
  /** Most responses held (default 20,000). */
  readonly maxEntries?: number | undefined
  /** Most body bytes held, keys and a fixed overhead per entry included (default 64 MiB). */
  readonly maxBytes?: number | undefined
  /** Longest a response is served without being recomputed, whatever happens (default 5 minutes). */
  readonly ttl?: Duration.Input | undefined
  /** Most bytes the snapshots (whole encoded lists) hold, beside `maxBytes` (default 64 MiB). */
  readonly maxSnapshotBytes?: number | undefined
}

/**
 * A version per entity type (and per feed: incidents, quantum readiness),
 * from the source every write bumps in its own transaction: two reads of one
 * type's version are equal only if no change of the type committed between them.
 */
export type CacheVersions = { readonly [T in ChangeTopic]?: string } & {
  /** The API keys' version: bumped by every revocation (see Authentication.ts's key memo). */
  readonly api_keys?: string
}

/**
 * The versions one request has read, from a query sent after it began: the
 * authentication middleware reads them (to check the keys it holds in
 * memory) and provides them to the request, and the request's cacheable read
 * uses them instead of waiting for another version query. Reading them once
 * per request is as strict as reading them per read: they reflect every
 * change committed before the request began.
 */
export class RequestVersions extends Context.Service<RequestVersions, CacheVersions>()(
  "@ratings/adapters-http/RequestVersions"
) {}

export interface ResponseCacheOptions<R = never> extends ResponseCacheConfig {
  /**
   * The current versions. Each call must read them afresh, in a snapshot
   * taken after the call began (one query, outside any transaction), so that
   * it reflects every change committed before. With it, entries are served
   * only under the version they were computed under, and the cache is on
   * whether or not changes are being listened to. Without it (the memory and
   * test layers), correctness rests on the notifications, as described on
   * `layerInvalidatedBy`.
   */
  readonly versions?: Effect.Effect<CacheVersions, unknown, R> | undefined
}

export const DefaultMaxEntries = 20_000
export const DefaultMaxBytes = 64 * 1024 * 1024
export const DefaultTtl = Duration.minutes(5)
export const DefaultMaxSnapshotBytes = 64 * 1024 * 1024
/** Most snapshots held: one per entity type, projection class and version in use is 14. */
const MaxSnapshots = 32

/** Bytes an entry is charged beyond its body and key: the response object, its headers and the indexes. */
const EntryOverhead = 256

/**
 * A value shared by every read of a type under one version and projection
 * class, from which such a read's body can be written without a query (the
 * list snapshot of ListPages.ts). Held in the cache beside the responses,
 * stamped, invalidated and bounded like them, and built once for the misses
 * that wait on it.
 */
export interface SnapshotSource<S, E> {
  /** Names the snapshot within the projection class and the versions of the read's topics. */
  readonly key: string
  /** Builds it, with the bytes it holds; a failed build leaves the read to `compute`. */
  readonly build: () => Effect.Effect<{ readonly value: S; readonly bytes: number }, E>
  /** The read's body from it, or undefined when it cannot answer exactly (the read is then computed). */
  readonly body: (snapshot: S) => Uint8Array | undefined
}

/** One cacheable read: what identifies it, how to compute it, and what it depends on. */
export interface Cacheable<A, E, S = unknown> {
  readonly caller: Caller
  /** The route and its normalised parameters; the projection class is added to it here. */
  readonly key: string
  readonly type: ChangeTopic
  /**
   * Other topics the value shows (every entity of each): an entry is stamped
   * with their versions too and dropped on any change of them. The incident
   * feed names protocols only while they are readable, so it also depends on
   * `protocol`; a chain's quantum reading on `chain`.
   */
  readonly also?: ReadonlyArray<ChangeTopic> | undefined
  /**
   * When the value shows something that changes with the clock alone (the
   * quantum stale flag), the instant (epoch ms) it may change: the entry is
   * never served from then on. Undefined: only a write changes it.
   */
  readonly expiresAt?: ((value: A) => number | undefined) | undefined
  /** The endpoint's success codec, the one HttpApiBuilder encodes the value with. */
  readonly schema: S.Top
  /** Called only on a miss (or when the read is not cached): a hit builds no query at all. */
  readonly compute: () => Effect.Effect<A, E>
  /** The one entity the value shows; undefined when it depends on every entity of the type (a list). */
  readonly entityOf: (value: A) => string | undefined
  /** Where a miss's body may come from instead of `compute` (its entry then depends on the whole type). */
  readonly snapshot?: SnapshotSource<S, E> | undefined
}

export interface ResponseCacheStats extends StoreStats {
  /**
   * Whether responses are served from the cache now: always with a version
   * source; without one, only while changes are being listened to.
   */
  readonly active: boolean
  /** Whether changes are being listened to (always false for `layer`, which is told of changes directly). */
  readonly listening: boolean
  /** Version queries run (one serves every read that began before it was sent and after the previous one). */
  readonly versionReads: number
  /** Version queries that failed: the reads waiting on them were computed, not served from the cache. */
  readonly versionFailures: number
  /** Reads waiting for the next version query to be sent (it is sent when the one under way answers). */
  readonly versionWaiting: number
  /** Snapshots held (list snapshots), and the bytes they are charged. */
  readonly snapshots: number
  readonly snapshotBytes: number
}

/** See ResponseCache's `hits`. */
export interface CacheHits {
  readonly versions: (waiter: (versions: CacheVersions | undefined) => void) => void
  readonly get: (
    projection: ProjectionClass,
    stamp: string,
    key: string
  ) => HttpServerResponse.HttpServerResponse | undefined
}

type Encoder = (value: unknown) => Effect.Effect<Uint8Array>

/** A miss under way; it fails (with nothing) when its computation did. */
interface Flight {
  /** The read's type and its `also` topics: a change of any of them forgets the flight. */
  readonly topics: ReadonlyArray<ChangeTopic>
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
    readonly respond: <A, E, S>(
      read: Cacheable<A, E, S>
    ) => Effect.Effect<A | HttpServerResponse.HttpServerResponse, E>
    /**
     * The current versions, from a query sent after the call began and shared
     * by the calls waiting with it (fails when the query failed); undefined
     * when the cache has no version source.
     */
    readonly versions: Effect.Effect<CacheVersions, void> | undefined
    /**
     * For the lane of cache hits (HitLane.ts), as plain functions: the
     * versions from a query sent after the call (undefined when it failed),
     * and the entry of a read under a version, if held. Undefined without a
     * version source: the lane then stays closed.
     */
    readonly hits: CacheHits | undefined
    /** Drops what a change invalidates, in this process, before the call returns. */
    readonly invalidate: (change: EntityChange) => Effect.Effect<void>
    /** Drops everything. */
    readonly clear: Effect.Effect<void>
    readonly stats: Effect.Effect<ResponseCacheStats>
    /** Every change applied from now on, once its entries are dropped (for tests and metrics). */
    readonly applied: Effect.Effect<PubSub.Subscription<EntityChange>, never, Scope.Scope>
  }
>()("@ratings/adapters-http/ResponseCache") {
  /**
   * A cache that is always on, invalidated through `invalidate` (one process
   * that makes every change) and, given `versions`, by the version check.
   */
  static readonly layer = <R = never>(
    options: ResponseCacheOptions<R> = {}
  ): Layer.Layer<ResponseCache, never, Exclude<R, Scope.Scope>> =>
    Layer.effect(
      ResponseCache,
      Effect.map(makeCache(options, true), (cache) => cache.service)
    ) as Layer.Layer<ResponseCache, never, Exclude<R, Scope.Scope>>

  /**
   * A cache invalidated by a stream of changes from every process, and,
   * given `options.versions`, checked against the versions on every read.
   * `subscribe` starts listening and returns the stream once listening is
   * confirmed. Without versions the cache is on from then until the stream
   * fails or ends, and then off (and emptied) until a new subscription; with
   * versions it is on throughout, and the stream only evicts early (a loss of
   * listening empties it, as entries of missed changes would otherwise stay
   * until the LRU or the TTL drops them). Subscriptions are retried with a
   * growing delay (up to 30 s). The layer is built once the first
   * subscription succeeded or failed.
   */
  static readonly layerInvalidatedBy = <E, R, R2 = never>(
    subscribe: Effect.Effect<Stream.Stream<EntityChange, E>, E, R>,
    options: ResponseCacheOptions<R2> = {}
  ): Layer.Layer<ResponseCache, never, Exclude<R | R2, Scope.Scope>> =>
    Layer.effect(
      ResponseCache,
      Effect.gen(function* () {
        const cache = yield* makeCache(options, false)
        const firstAttempt = yield* Deferred.make<void>()
        const listen = Effect.scoped(
          Effect.gen(function* () {
            const changes = yield* subscribe
            cache.listening()
            yield* Deferred.succeed(firstAttempt, undefined)
            yield* Effect.logInfo("response cache: listening for changes")
            yield* Stream.runForEach(changes, cache.apply)
          })
        )
        const supervise = Effect.gen(function* () {
          let delay = 250
          while (true) {
            const exit = yield* Effect.exit(listen)
            const wasListening = cache.notListening()
            yield* Deferred.succeed(firstAttempt, undefined)
            yield* Effect.logWarning(
              options.versions === undefined
                ? "response cache off: not listening for changes; retrying"
                : "response cache: not listening for changes (entries still checked against the versions); retrying",
              Exit.isFailure(exit) ? exit.cause : "the stream of changes ended"
            )
            delay = wasListening ? 250 : Math.min(delay * 2, 30_000)
            yield* Effect.sleep(Duration.millis(delay))
          }
        })
        yield* Effect.forkScoped(supervise)
        yield* Deferred.await(firstAttempt)
        return cache.service
      })
    ) as Layer.Layer<ResponseCache, never, Exclude<R | R2, Scope.Scope>>
}

/** Version queries under way at once, at most (each holds a pooled connection for its round trip). */
export const MaxVersionQueries = 2

/**
 * The versions as seen by reads that begin now. Reads wait in a queue; a
 * fiber takes every read waiting, sends one query for them all, and answers
 * them with its result. So each read gets versions from a query sent after
 * it began (never from one already under way, whose snapshot may predate a
 * commit the read must see), and a busy process runs one version query per
 * batch of reads instead of one per read. Up to `MaxVersionQueries` queries
 * are under way at once: the reads that arrive while one is (a round trip
 * during which a busy server would otherwise wait idle) are sent their own
 * at once, if a slot is free, instead of waiting for it to answer first.
 */
const makeVersionReader = <R>(read: Effect.Effect<CacheVersions, unknown, R>) =>
  Effect.gen(function* () {
    const context = yield* Effect.context<R>()
    const scope = yield* Effect.scope
    const query = Effect.provideContext(read, context)
    // A waiter is told the versions, or undefined when the query failed.
    const waiting = yield* Queue.unbounded<(versions: CacheVersions | undefined) => void>()
    const slots = yield* Semaphore.make(MaxVersionQueries)
    let reads = 0
    let failures = 0
    const tellAll = (
      batch: ReadonlyArray<(versions: CacheVersions | undefined) => void>,
      versions: CacheVersions | undefined
    ) => {
      for (const waiter of batch) waiter(versions)
    }
    const answer = (batch: ReadonlyArray<(versions: CacheVersions | undefined) => void>) =>
      Effect.exit(query).pipe(
        Effect.onInterrupt(() => Effect.sync(() => tellAll(batch, undefined))),
        Effect.flatMap((exit) =>
          Effect.sync(() => {
            if (Exit.isFailure(exit)) failures++
            tellAll(batch, Exit.isSuccess(exit) ? exit.value : undefined)
          })
        ),
        Effect.ensuring(slots.release(1))
      )
    // A slot first, then the reads waiting: a batch is taken only when its query can be sent at once.
    const serveBatch = Effect.gen(function* () {
      yield* slots.take(1)
      const batch = yield* Queue.takeAll(waiting)
      reads++
      yield* Effect.forkIn(answer(batch), scope)
    })
    yield* Effect.forkScoped(Effect.forever(serveBatch))
    const currentUnsafe = (waiter: (versions: CacheVersions | undefined) => void): void => {
      Queue.offerUnsafe(waiting, waiter)
    }
    return {
      /** Fails (with nothing) when the query failed: the caller then computes its read. */
      current: Effect.callback<CacheVersions, void>((resume) => {
        currentUnsafe((versions) =>
          resume(versions === undefined ? Effect.fail(undefined) : Effect.succeed(versions))
        )
      }),
      currentUnsafe,
      stats: () => ({
        versionReads: reads,
        versionFailures: failures,
        versionWaiting: Queue.sizeUnsafe(waiting)
      })
    }
  })

/** What the serving functions share: the stored responses and the misses under way. */
interface CacheCore {
  readonly store: ProjectionStore<HttpServerResponse.HttpServerResponse>
  /**
   * Misses of one key under way: later callers wait for the first one's
   * response instead of running the same query (a burst after an
   * invalidation costs one query). A change of the type forgets them, so a
   * read that begins after the change never waits for one begun before it.
   * With versions, the key holds the version of the type, so a read only
   * ever joins a computation begun under the version it read itself.
   */
  readonly flights: Map<string, Flight>
  /** The snapshots reads are answered from (SnapshotSource), under the same stamps as the responses. */
  readonly snapshots: ProjectionStore<unknown>
  /** Snapshots being built, by key: every miss that needs one waits for the same build. */
  readonly snapshotFlights: Map<string, SnapshotFlight>
}

/** A snapshot being built; it fails (with nothing) when the build did. */
interface SnapshotFlight {
  /** The read's type and its `also` topics: a change of any of them forgets the build. */
  readonly topics: ReadonlyArray<ChangeTopic>
  readonly done: Deferred.Deferred<unknown, void>
}

/**
 * Held in place of a snapshot larger than the whole snapshot budget: the
 * reads under its stamp are computed, instead of each building it again.
 */
const TooLarge: unique symbol = Symbol("snapshot larger than maxSnapshotBytes")
const TooLargeBytes = 64

/**
 * The snapshot under `key` (the stamp and the source's key): held, or built
 * once for every miss waiting on it and stored unless a change of its topics
 * came meanwhile. Undefined when the build failed (the read is then computed,
 * and fails with its own error if the store does) or when it is too large.
 */
const snapshotOf = <A, E, S>(
  core: CacheCore,
  read: Cacheable<A, E, S>,
  source: SnapshotSource<S, E>,
  key: string
): Effect.Effect<S | undefined> =>
  Effect.clockWith((clock) => {
    const held = core.snapshots.get(key, clock.currentTimeMillisUnsafe())
    if (held === TooLarge) return Effect.succeed(undefined)
    if (held !== undefined) return Effect.succeed(held as S)
    const waiting = core.snapshotFlights.get(key)
    if (waiting !== undefined)
      return Effect.orElseSucceed(Deferred.await(waiting.done) as Effect.Effect<S, void>, () => undefined)
    const flight: SnapshotFlight = { topics: topicsOf(read), done: Deferred.makeUnsafe() }
    core.snapshotFlights.set(key, flight)
    const ticket = core.snapshots.ticket()
    return source.build().pipe(
      Effect.map((built) => {
        const fits = built.bytes <= core.snapshots.limits.maxBytes
        const [value, bytes] = fits ? [built.value, built.bytes] : [TooLarge, TooLargeBytes]
        const dependency = { type: read.type, also: read.also }
        core.snapshots.set(key, value, bytes, dependency, ticket, clock.currentTimeMillisUnsafe())
        return built.value
      }),
      Effect.onExit((exit) =>
        Effect.sync(() => {
          if (core.snapshotFlights.get(key) === flight) core.snapshotFlights.delete(key)
          Deferred.doneUnsafe(
            flight.done,
            Exit.isSuccess(exit) ? Exit.succeed(exit.value) : Exit.fail(undefined)
          )
        })
      ),
      Effect.orElseSucceed(() => undefined)
    )
  })

/** What a miss stores: its body, and what the entry depends on beyond its topics. */
interface MissBody {
  readonly body: Uint8Array
  readonly entityId: string | undefined
  readonly expiresAt: number | undefined
}

/**
 * The body of a miss: from the read's snapshot when it can answer (the entry
 * then depends on the whole type), else computed and encoded.
 */
const bodyOf = <A, E, S>(
  core: CacheCore,
  read: Cacheable<A, E, S>,
  prefix: string
): Effect.Effect<MissBody, E> => {
  const computed = Effect.flatMap(read.compute(), (value) =>
    Effect.map(encoderOf(read.schema)(value), (body) => ({
      body,
      entityId: read.entityOf(value),
      expiresAt: read.expiresAt?.(value)
    }))
  )
  const source = read.snapshot
  if (source === undefined) return computed
  return Effect.flatMap(snapshotOf(core, read, source, `${prefix}|${source.key}`), (snapshot) => {
    const body = snapshot === undefined ? undefined : source.body(snapshot)
    return body === undefined ? computed : Effect.succeed({ body, entityId: undefined, expiresAt: undefined })
  })
}

const computeAndStore = <A, E, S>(core: CacheCore, read: Cacheable<A, E, S>, prefix: string, key: string) =>
  Effect.clockWith((clock) => {
    const ticket = core.store.ticket()
    return Effect.map(bodyOf(core, read, prefix), ({ body, entityId, expiresAt }) => {
      const response = encodedResponse(body)
      core.store.set(
        key,
        response,
        body.byteLength + key.length * 2 + EntryOverhead,
        { type: read.type, entityId, also: read.also, expiresAt },
        ticket,
        clock.currentTimeMillisUnsafe()
      )
      return response
    })
  })

const lead = <A, E, S>(core: CacheCore, read: Cacheable<A, E, S>, prefix: string, key: string) => {
  const flight: Flight = { topics: topicsOf(read), done: Deferred.makeUnsafe() }
  core.flights.set(key, flight)
  return computeAndStore(core, read, prefix, key).pipe(
    Effect.onExit((exit) =>
      Effect.sync(() => {
        if (core.flights.get(key) === flight) core.flights.delete(key)
        // A failure is not shared: each waiter then computes its own answer.
        const outcome: Exit.Exit<HttpServerResponse.HttpServerResponse, void> = Exit.isSuccess(exit)
          ? Exit.succeed(exit.value)
          : Exit.fail(undefined)
        Deferred.doneUnsafe(flight.done, outcome)
      })
    )
  )
}

/**
 * The cached response of the read under `prefix` (its projection class and
 * version stamp), or the shared computation of it.
 */
const serve = <A, E, S>(core: CacheCore, read: Cacheable<A, E, S>, prefix: string) =>
  Effect.clockWith((clock) => {
    const key = `${prefix}|${read.key}`
    const hit = core.store.get(key, clock.currentTimeMillisUnsafe())
    if (hit !== undefined) return Effect.succeed(hit)
    const flight = core.flights.get(key)
    if (flight === undefined) return lead(core, read, prefix, key)
    return Effect.catch(Deferred.await(flight.done), () => computeAndStore(core, read, prefix, key))
  })

type VersionReader = Effect.Success<ReturnType<typeof makeVersionReader>>

/** The part of a store key that says under which projection class and version stamp (see `versionStamp`). */
const versionedPrefix = (projection: ProjectionClass, stamp: string): string => `${projection}|v${stamp}`

/** The store key of an entry computed under the version stamp `stamp`. */
const versionedKey = (projection: ProjectionClass, stamp: string, key: string): string =>
  `${versionedPrefix(projection, stamp)}|${key}`

/**
 * The versions an entry is stamped with: its type's, then each of its
 * `also` topics' (joined by dots); undefined when one is unknown.
 */
export const versionStamp = (
  current: CacheVersions,
  topics: ReadonlyArray<ChangeTopic>
): string | undefined => {
  let stamp: string | undefined
  for (const topic of topics) {
    const version = current[topic]
    if (version === undefined) return undefined
    stamp = stamp === undefined ? version : `${stamp}.${version}`
  }
  return stamp
}

/** A read's type, then the other topics it shows. */
const topicsOf = <A, E, S>(read: Cacheable<A, E, S>): ReadonlyArray<ChangeTopic> =>
  read.also === undefined ? [read.type] : [read.type, ...read.also]

/**
 * A request answered with a cached response: whom for, which entry (the
 * topics its stamp is made of, the projection class and key), and the
 * response. HitLane.ts learns from it which entry a request target leads to.
 */
export interface ServedFromCache {
  readonly kind: CallerKind
  readonly topics: ReadonlyArray<ChangeTopic>
  readonly projection: ProjectionClass
  readonly key: string
  readonly response: HttpServerResponse.HttpServerResponse
}

/** The cached answers of requests in flight, by the server request's `source` (Node's IncomingMessage). */
export const servedFromCache = new WeakMap<object, ServedFromCache>()

const noteServed =
  (served: Omit<ServedFromCache, "response">) => (response: HttpServerResponse.HttpServerResponse) =>
    Effect.map(Effect.serviceOption(HttpServerRequest.HttpServerRequest), (request) => {
      if (request._tag === "Some") servedFromCache.set(request.value.source, { ...served, response })
      return response
    })

/** `respond`: a cached or shared answer for a cacheable read while the cache is active, else the read itself. */
const makeRespond =
  (core: CacheCore, versions: VersionReader | undefined, isActive: () => boolean) =>
  <A, E, S>(read: Cacheable<A, E, S>): Effect.Effect<A | HttpServerResponse.HttpServerResponse, E> => {
    const projection = projectionClassOf(read.caller)
    if (projection === undefined || !isActive()) return read.compute()
    if (versions === undefined) return serve(core, read, projection)
    // The version is read before anything is looked up or computed: the entry's stamp.
    const current = Effect.flatMap(Effect.serviceOption(RequestVersions), (read) =>
      read._tag === "Some" ? Effect.succeed(read.value) : versions.current
    )
    return Effect.matchEffect(current, {
      onFailure: (): Effect.Effect<A | HttpServerResponse.HttpServerResponse, E> => read.compute(),
      onSuccess: (current): Effect.Effect<A | HttpServerResponse.HttpServerResponse, E> => {
        const topics = topicsOf(read)
        const stamp = versionStamp(current, topics)
        if (stamp === undefined) return read.compute()
        const served = { kind: callerKind(read.caller), topics, projection, key: read.key }
        return Effect.flatMap(serve(core, read, versionedPrefix(projection, stamp)), noteServed(served))
      }
    })
  }

/** The responses, the snapshots and the misses under way, empty. */
const makeCore = (
  store: ProjectionStore<HttpServerResponse.HttpServerResponse>,
  options: ResponseCacheConfig
): CacheCore => ({
  store,
  flights: new Map(),
  snapshots: new ProjectionStore<unknown>({
    maxEntries: MaxSnapshots,
    maxBytes: options.maxSnapshotBytes ?? DefaultMaxSnapshotBytes,
    ttlMillis: store.limits.ttlMillis
  }),
  snapshotFlights: new Map()
})

/** The cache and the switches its invalidation source drives. */
const makeCache = <R>(options: ResponseCacheOptions<R>, alwaysOn: boolean) =>
  Effect.gen(function* () {
    const store = new ProjectionStore<HttpServerResponse.HttpServerResponse>({
      maxEntries: options.maxEntries ?? DefaultMaxEntries,
      maxBytes: options.maxBytes ?? DefaultMaxBytes,
      ttlMillis: Duration.toMillis(Duration.fromInputUnsafe(options.ttl ?? DefaultTtl))
    })
    const clock = yield* Effect.clockWith(Effect.succeed)
    const changes = yield* PubSub.unbounded<EntityChange>()
    const versions = options.versions === undefined ? undefined : yield* makeVersionReader(options.versions)
    let listening = false
    /** Without versions, only notifications keep entries current: serve only while they are heard. */
    const isActive = () => alwaysOn || versions !== undefined || listening
    const core = makeCore(store, options)
    const flights = core.flights

    const apply = (change: EntityChange) =>
      Effect.suspend(() => {
        store.invalidate(change)
        core.snapshots.invalidate(change)
        for (const [key, flight] of flights)
          if (flight.topics.includes(change.entity_type)) flights.delete(key)
        for (const [key, flight] of core.snapshotFlights)
          if (flight.topics.includes(change.entity_type)) core.snapshotFlights.delete(key)
        return PubSub.publish(changes, change)
      })

    const respond = makeRespond(core, versions, isActive)
    const empty = () => {
      store.clear()
      flights.clear()
      core.snapshots.clear()
      core.snapshotFlights.clear()
    }

    const service = ResponseCache.of({
      respond,
      versions: versions?.current,
      hits:
        versions === undefined
          ? undefined
          : {
              versions: versions.currentUnsafe,
              get: (projection, stamp, key) =>
                store.get(versionedKey(projection, stamp, key), clock.currentTimeMillisUnsafe())
            },
      invalidate: (change) => Effect.asVoid(apply(change)),
      clear: Effect.sync(() => empty()),
      stats: Effect.sync(() => ({
        ...store.stats(),
        snapshots: core.snapshots.stats().entries,
        snapshotBytes: core.snapshots.stats().bytes,
        active: isActive(),
        listening,
        ...(versions?.stats() ?? { versionReads: 0, versionFailures: 0, versionWaiting: 0 })
      })),
      applied: PubSub.subscribe(changes)
    })

    return {
      service,
      apply: (change: EntityChange) => Effect.asVoid(apply(change)),
      /** Listening is confirmed: start empty, since changes may have been missed before. */
      listening: () => {
        empty()
        listening = true
      },
      /** Not listening (any more): empty. Returns whether it was listening. */
      notListening: (): boolean => {
        const was = listening
        listening = false
        empty()
        return was
      }
    }
  })
