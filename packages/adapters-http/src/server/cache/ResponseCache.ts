/**
 * The response cache of the hot public reads (entity lists, details,
 * scorecard lists): each read's complete answer (Answers.ts), encoded once
 * (Encoding.ts) and served to every caller of the same projection class (the
 * domain's `projectionClassOf`; an admin's reads are never cached). Errors
 * are never cached. With a version source every read is checked against the
 * versions it read itself (Versions.ts), so no read that begins after a
 * committed write gets the state before it; concurrent misses share one
 * computation (SingleFlight.ts), lists are paged from snapshots
 * (Snapshots.ts). Changes heard from every process evict early; LRU by
 * entries and bytes, with a TTL as a safety net (ProjectionStore.ts).
 */
import { type ProjectionClass, projectionClassOf } from "@ratings/domain/access/Projection"
import { type CallerKind, callerKind } from "@ratings/domain/model/Caller"
import { Context, Deferred, Duration, Effect, Exit, Layer, PubSub, type Scope, Stream } from "effect"
import { HttpRouter, type HttpServerResponse } from "effect/http"
import {
  AnswerSlot,
  type CachedAnswer,
  type Head,
  makeTargets,
  type Recorder,
  recordAnswers,
  type Served
} from "./Answers.ts"
import { type Cacheable, topicsOf } from "./Cacheable.ts"
import { type EntityChange, ProjectionStore, type StoreStats } from "./ProjectionStore.ts"
import { makeMisses } from "./SingleFlight.ts"
import { makeSnapshots } from "./Snapshots.ts"
import {
  type CacheVersions,
  makeVersionReader,
  RequestVersions,
  type VersionReader,
  versionStamp
} from "./Versions.ts"

export type { CachedAnswer, Head } from "./Answers.ts"
export type { Cacheable, SnapshotSource } from "./Cacheable.ts"
export { encodedResponse } from "./Encoding.ts"
export { AllOfType, type EntityChange } from "./ProjectionStore.ts"
export { type CacheVersions, MaxVersionQueries, RequestVersions, versionStamp } from "./Versions.ts"

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

export interface ResponseCacheOptions<R = never> extends ResponseCacheConfig {
  /**
   * The current versions. Each call must read them afresh, in a snapshot
   * taken after the call began (one query, outside any transaction). With
   * it, entries are served only under the version they were computed under
   * and the cache is on whether or not changes are heard; without it (the
   * memory and test layers) correctness rests on the notifications.
   */
  readonly versions?: Effect.Effect<CacheVersions, unknown, R> | undefined
}

export const DefaultMaxEntries = 20_000
export const DefaultMaxBytes = 64 * 1024 * 1024
export const DefaultTtl = Duration.minutes(5)
export const DefaultMaxSnapshotBytes = 64 * 1024 * 1024

export interface ResponseCacheStats extends StoreStats {
  /** Whether responses are served from the cache now: always with a version source; else while listening. */
  readonly active: boolean
  /** Whether changes are being listened to (always false for `layer`, which is told of changes directly). */
  readonly listening: boolean
  /** Version queries run (one serves every read that began before it was sent and after the previous one). */
  readonly versionReads: number
  /** Version queries that failed: the reads waiting on them were computed, not served from the cache. */
  readonly versionFailures: number
  /** Reads waiting for the next version query to be sent. */
  readonly versionWaiting: number
  /** Snapshots held (list snapshots), and the bytes they are charged. */
  readonly snapshots: number
  readonly snapshotBytes: number
}

/** The complete answer a request target leads to for a kind of caller, and its route's template. */
export interface LaneAnswer {
  readonly answer: CachedAnswer
  readonly head: Head
  readonly route: string | undefined
}

/** What the lane of cache hits reads, as plain functions. */
export interface CacheHits {
  /** The versions from a query sent after the call (undefined when it failed). */
  readonly versions: (waiter: (versions: CacheVersions | undefined) => void) => void
  /** Whether a complete answer is known for the target and one of the kinds. */
  readonly knows: (kinds: ReadonlyArray<CallerKind>, target: string) => boolean
  /** The complete answer the target leads to for the kind under these versions, when held and recorded. */
  readonly answerFor: (kind: CallerKind, target: string, versions: CacheVersions) => LaneAnswer | undefined
}

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
    /** For the lane of cache hits (HitLane.ts); undefined without a version source: the lane then stays closed. */
    readonly hits: CacheHits | undefined
    /** The router's outermost step that records complete answers (Answers.ts); identity without a version source. */
    readonly recorder: Recorder
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

/** The store key part that says under which projection class and version stamp. */
const versionedPrefix = (projection: ProjectionClass, stamp: string): string => `${projection}|v${stamp}`

/** What the service's functions share. */
interface CacheParts {
  readonly store: ProjectionStore<CachedAnswer>
  readonly misses: ReturnType<typeof makeMisses>
  readonly versions: VersionReader | undefined
  readonly isActive: () => boolean
}

/** Notes the entry served in the request's slot (Answers.ts), for the recorder. */
const noteServed = (served: Omit<Served, "answer" | "route">) => (answer: CachedAnswer) =>
  Effect.withFiber((fiber) => {
    const slot = Context.getOrUndefined(fiber.context, AnswerSlot)
    if (slot !== undefined)
      slot.served = {
        ...served,
        answer,
        route: Context.getOrUndefined(fiber.context, HttpRouter.RouteContext)?.route.path
      }
    return Effect.succeed(answer.response)
  })

/** `respond`: a cached or shared answer for a cacheable read while the cache is active, else the read itself. */
const makeRespond =
  (parts: CacheParts) =>
  <A, E, S>(read: Cacheable<A, E, S>): Effect.Effect<A | HttpServerResponse.HttpServerResponse, E> => {
    const projection = projectionClassOf(read.caller)
    if (projection === undefined || !parts.isActive()) return read.compute()
    const versions = parts.versions
    if (versions === undefined) return Effect.map(parts.misses.serve(read, projection), (a) => a.response)
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
        return Effect.flatMap(
          parts.misses.serve(read, versionedPrefix(projection, stamp)),
          noteServed(served)
        )
      }
    })
  }

/** The lane's functions over the store and the targets the recorder learned. */
const makeHits = (parts: CacheParts, versions: VersionReader, now: () => number) => {
  const targets = makeTargets()
  const hits: CacheHits = {
    versions: versions.currentUnsafe,
    knows: (kinds, target) => targets.hasAny(kinds, target),
    answerFor: (kind, target, current) => {
      const learned = targets.get(kind, target)
      const stamp = learned === undefined ? undefined : versionStamp(current, learned.topics)
      if (learned === undefined || stamp === undefined) return undefined
      const answer = parts.store.get(`${versionedPrefix(learned.projection, stamp)}|${learned.key}`, now())
      const head = answer?.heads[kind]
      return answer === undefined || head === undefined ? undefined : { answer, head, route: learned.route }
    }
  }
  const recorder = recordAnswers((target, served, head) => {
    ;(served.answer.heads as Record<string, Head>)[served.kind] = head
    const { topics, projection, key, route } = served
    targets.set(served.kind, target, { topics, projection, key, route })
  })
  return { hits, recorder }
}

/** The cache and the switches its invalidation source drives. */
const makeCache = <R>(options: ResponseCacheOptions<R>, alwaysOn: boolean) =>
  Effect.gen(function* () {
    const store = new ProjectionStore<CachedAnswer>({
      maxEntries: options.maxEntries ?? DefaultMaxEntries,
      maxBytes: options.maxBytes ?? DefaultMaxBytes,
      ttlMillis: Duration.toMillis(Duration.fromInputUnsafe(options.ttl ?? DefaultTtl))
    })
    const snapshots = makeSnapshots(
      options.maxSnapshotBytes ?? DefaultMaxSnapshotBytes,
      store.limits.ttlMillis
    )
    const clock = yield* Effect.clockWith(Effect.succeed)
    const changes = yield* PubSub.unbounded<EntityChange>()
    const versions = options.versions === undefined ? undefined : yield* makeVersionReader(options.versions)
    let listening = false
    const misses = makeMisses(store, snapshots)
    /** Without versions, only notifications keep entries current: serve only while they are heard. */
    const parts: CacheParts = {
      store,
      misses,
      versions,
      isActive: () => alwaysOn || versions !== undefined || listening
    }
    const apply = (change: EntityChange) =>
      Effect.suspend(() => {
        store.invalidate(change)
        snapshots.invalidate(change)
        misses.forget(change)
        return PubSub.publish(changes, change)
      })
    const empty = () => {
      store.clear()
      misses.clear()
      snapshots.clear()
    }
    const lane =
      versions === undefined ? undefined : makeHits(parts, versions, () => clock.currentTimeMillisUnsafe())
    const service = ResponseCache.of({
      respond: makeRespond(parts),
      versions: versions?.current,
      hits: lane?.hits,
      recorder:
        lane?.recorder ?? (<E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) => app),
      invalidate: (change) => Effect.asVoid(apply(change)),
      clear: Effect.sync(() => empty()),
      stats: Effect.sync(() => ({
        ...store.stats(),
        snapshots: snapshots.stats().entries,
        snapshotBytes: snapshots.stats().bytes,
        active: parts.isActive(),
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
