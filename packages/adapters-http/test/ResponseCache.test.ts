/**
 * The projection cache (server/cache/ResponseCache.ts, server/cache/ProjectionStore.ts):
 * the store's bounds and invalidation rules as plain data, then the cache in
 * front of the real routes of a real server on an ephemeral port, over the
 * domain's in-memory stores with every read counted, so that "a hit runs no
 * query" is observed, not assumed. The uncached server (TestServer without a
 * cache: HttpApiBuilder's own encoding) is the reference for the bytes.
 */
import { assert, describe, it } from "@effect/vitest"
import { projectionClassOf, projectScorecardList } from "@ratings/domain/access/Projection"
import type { EntityRecord } from "@ratings/domain/model/Entity"
import { type EntityType, EntityTypes } from "@ratings/domain/model/EntityType"
import { EntityRepository } from "@ratings/domain/ports/EntityRepository"
import { ScorecardRepository } from "@ratings/domain/ports/ScorecardRepository"
import { Deferred, Effect, Fiber, Layer, PubSub, Queue, Stream } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import type { PoliciesConfig } from "../src/server/HttpServerLive.ts"
import {
  AllOfType,
  type EntityChange,
  ProjectionStore,
  type StoreLimits
} from "../src/server/cache/ProjectionStore.ts"
import {
  type CacheVersions,
  MaxVersionQueries,
  ResponseCache,
  type ResponseCacheConfig
} from "../src/server/cache/ResponseCache.ts"
import { type CallerName, CallerNames, Callers5, cardsOf, entityId, Seed, slugOf } from "./fixtures.ts"
import { type GetOptions, MemoryFeeds, type Response, TestPolicies, TestServer } from "./TestServer.ts"
import { ApiKeyRepositoryMemory } from "@ratings/domain/ports/memory/ApiKeyRepositoryMemory"
import { EntityRepositoryMemory } from "@ratings/domain/ports/memory/EntityRepositoryMemory"
import { RubricRepositoryMemory } from "@ratings/domain/ports/memory/RubricRepositoryMemory"
import { ScorecardRepositoryMemory } from "@ratings/domain/ports/memory/ScorecardRepositoryMemory"

// --- the store, as plain data -------------------------------------------------------------

const limits = (over: Partial<StoreLimits> = {}): StoreLimits => ({
  maxEntries: 100,
  maxBytes: 1_000_000,
  ttlMillis: 60_000,
  ...over
})

const list = { type: "protocol" } as const
const item = (id: string) => ({ type: "protocol", entityId: id }) as const

describe("ProjectionStore", () => {
  it("holds at most maxEntries values and evicts the least recently used first", () => {
    const store = new ProjectionStore<string>(limits({ maxEntries: 2 }))
    store.set("a", "A", 1, list, store.ticket(), 0)
    store.set("b", "B", 1, list, store.ticket(), 0)
    assert.strictEqual(store.get("a", 0), "A") // a is now the most recently used
    store.set("c", "C", 1, list, store.ticket(), 0)
    assert.strictEqual(store.get("b", 0), undefined)
    assert.strictEqual(store.get("a", 0), "A")
    assert.strictEqual(store.get("c", 0), "C")
    assert.strictEqual(store.stats().entries, 2)
    assert.strictEqual(store.stats().evicted, 1)
  })

  it("holds at most maxBytes and never stores a value larger than the whole budget", () => {
    const store = new ProjectionStore<string>(limits({ maxBytes: 100 }))
    store.set("a", "A", 60, list, store.ticket(), 0)
    store.set("b", "B", 60, list, store.ticket(), 0)
    assert.strictEqual(store.get("a", 0), undefined)
    assert.strictEqual(store.stats().bytes, 60)
    assert.isFalse(store.set("huge", "H", 101, list, store.ticket(), 0))
    assert.strictEqual(store.get("b", 0), "B")
  })

  it("stays within both bounds whatever is stored (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 80 })), {
          maxLength: 200
        }),
        (writes) => {
          const store = new ProjectionStore<number>(limits({ maxEntries: 10, maxBytes: 200 }))
          for (const [key, bytes] of writes) store.set(`k${key}`, bytes, bytes, list, store.ticket(), 0)
          const { entries, bytes } = store.stats()
          return entries <= 10 && bytes <= 200
        }
      )
    )
  })

  it("a value is dropped once its TTL has passed", () => {
    const store = new ProjectionStore<string>(limits({ ttlMillis: 1000 }))
    store.set("a", "A", 1, list, store.ticket(), 0)
    assert.strictEqual(store.get("a", 999), "A")
    assert.strictEqual(store.get("a", 1000), undefined)
    assert.strictEqual(store.stats().expired, 1)
  })

  it("a change of one entity drops its values and every list of its type, nothing else", () => {
    const store = new ProjectionStore<string>(limits())
    const a = entityId("protocol", "alpha")
    const b = entityId("protocol", "beta")
    store.set("protocol list", "L", 1, list, store.ticket(), 0)
    store.set("alpha detail", "A", 1, item(a), store.ticket(), 0)
    store.set("alpha scorecards", "AS", 1, item(a), store.ticket(), 0)
    store.set("beta detail", "B", 1, item(b), store.ticket(), 0)
    store.set("chain list", "C", 1, { type: "chain" }, store.ticket(), 0)
    assert.strictEqual(store.invalidate({ entity_type: "protocol", entity_id: a.toUpperCase() }), 3)
    assert.strictEqual(store.get("protocol list", 0), undefined)
    assert.strictEqual(store.get("alpha detail", 0), undefined)
    assert.strictEqual(store.get("alpha scorecards", 0), undefined)
    assert.strictEqual(store.get("beta detail", 0), "B")
    assert.strictEqual(store.get("chain list", 0), "C")
  })

  it("a change of `<type>:*` drops every value of the type", () => {
    const store = new ProjectionStore<string>(limits())
    store.set("protocol list", "L", 1, list, store.ticket(), 0)
    store.set("alpha detail", "A", 1, item(entityId("protocol", "alpha")), store.ticket(), 0)
    store.set("chain list", "C", 1, { type: "chain" }, store.ticket(), 0)
    assert.strictEqual(store.invalidate({ entity_type: "protocol", entity_id: AllOfType }), 2)
    assert.strictEqual(store.stats().entries, 1)
    assert.strictEqual(store.get("chain list", 0), "C")
  })

  it("a value computed while its type changed (or the store was cleared) is not stored", () => {
    const store = new ProjectionStore<string>(limits())
    const before = store.ticket()
    store.invalidate({ entity_type: "protocol", entity_id: entityId("protocol", "beta") })
    assert.isFalse(store.set("alpha detail", "stale", 1, item(entityId("protocol", "alpha")), before, 0))
    assert.isTrue(store.set("chain list", "C", 1, { type: "chain" }, before, 0))
    const beforeClear = store.ticket()
    store.clear()
    assert.isFalse(store.set("chain list", "C", 1, { type: "chain" }, beforeClear, 0))
    assert.strictEqual(store.stats().refused, 2)
  })
})

describe("ProjectionStore, values that show other topics or change with the clock", () => {
  const feed = { type: "incident", also: ["protocol"] } as const

  it("a value that also shows a topic is dropped by any change of it, and by `<topic>:*`; other topics leave it", () => {
    const store = new ProjectionStore<string>(limits())
    store.set("feed", "F", 1, feed, store.ticket(), 0)
    store.set("quantum", "Q", 1, { type: "quantum", also: ["chain"] }, store.ticket(), 0)
    assert.strictEqual(store.invalidate({ entity_type: "token", entity_id: "x" }), 0)
    assert.strictEqual(
      store.invalidate({ entity_type: "protocol", entity_id: entityId("protocol", "alpha") }),
      1
    )
    assert.strictEqual(store.get("feed", 0), undefined)
    assert.strictEqual(store.get("quantum", 0), "Q")
    assert.strictEqual(store.invalidate({ entity_type: "chain", entity_id: AllOfType }), 1)
    store.set("feed", "F", 1, feed, store.ticket(), 0)
    assert.strictEqual(store.invalidate({ entity_type: "incident", entity_id: "i-1" }), 1)
    assert.strictEqual(store.stats().entries, 0)
    assert.strictEqual(store.stats().bytes, 0, "no index keeps a dropped value")
  })

  it("a value computed while a topic it also shows changed is not stored", () => {
    const store = new ProjectionStore<string>(limits())
    const before = store.ticket()
    store.invalidate({ entity_type: "protocol", entity_id: entityId("protocol", "private") })
    assert.isFalse(store.set("feed", "stale", 1, feed, before, 0))
    assert.strictEqual(store.stats().refused, 1)
  })

  it("a value with an expiry before its TTL is served until just before it, never from it on; one already past is not stored", () => {
    const store = new ProjectionStore<string>(limits({ ttlMillis: 60_000 }))
    assert.isTrue(store.set("q", "Q", 1, { type: "quantum", expiresAt: 1500 }, store.ticket(), 1000))
    assert.strictEqual(store.get("q", 1499), "Q")
    assert.strictEqual(store.get("q", 1500), undefined)
    assert.isFalse(store.set("q", "Q", 1, { type: "quantum", expiresAt: 1500 }, store.ticket(), 1500))
    // A later expiry than the TTL leaves the TTL in force.
    store.set("r", "R", 1, { type: "quantum", expiresAt: 10_000_000 }, store.ticket(), 0)
    assert.strictEqual(store.get("r", 60_000), undefined)
  })
})

describe("projection classes", () => {
  it("the domain's classes: Anonymous and Free share one, Pro and Enterprise another; an admin's reads have none", () => {
    assert.strictEqual(projectionClassOf(Callers5.anonymous), "public")
    assert.strictEqual(projectionClassOf(Callers5.free), "public")
    assert.strictEqual(projectionClassOf(Callers5.pro), "full")
    assert.strictEqual(projectionClassOf(Callers5.enterprise), "full")
    assert.strictEqual(projectionClassOf(Callers5.admin), undefined)
  })

  it("callers of one class get the same projection from the domain, and the two classes differ", () => {
    for (const type of ["protocol", "chain"] as const) {
      const cards = cardsOf(type, "alpha")
      const of = (caller: CallerName) => projectScorecardList(Callers5[caller], type, cards)
      assert.deepStrictEqual(of("anonymous"), of("free"))
      assert.deepStrictEqual(of("pro"), of("enterprise"))
      assert.notDeepEqual(of("anonymous"), of("pro"))
    }
  })
})

// --- the cache in front of the real routes -----------------------------------------------

interface Reads {
  count: number
  /** While set, entity lists wait for it to be done before they answer. */
  gate?: Deferred.Deferred<void> | undefined
}

/**
 * Port calls of one computed public list: the list read together with the
 * chains its records may not name (`EntityRepository.listWithUnreadable`, ADR 0003).
 */
const ReadsPerList = 1

/** Counts every call to a port's methods: a cache hit must not add any. */
const countCalls = <S extends object>(service: S, reads: Reads): S =>
  new Proxy(service, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver)
      if (typeof value !== "function") return value
      return (...args: Array<unknown>) => {
        reads.count++
        const answer = value.apply(target, args)
        const gate = reads.gate
        return (property === "list" || property === "listWithUnreadable") && gate !== undefined
          ? Effect.andThen(Deferred.await(gate), answer)
          : answer
      }
    }
  })

/** The seeded in-memory stores, every read of an entity or a scorecard counted. */
const countedPorts = (reads: Reads) =>
  Layer.mergeAll(
    Layer.effect(
      EntityRepository,
      Effect.map(Effect.service(EntityRepository), (s) => countCalls(s, reads))
    ).pipe(Layer.provide(EntityRepositoryMemory.layer(Seed.entities))),
    Layer.effect(
      ScorecardRepository,
      Effect.map(Effect.service(ScorecardRepository), (s) => countCalls(s, reads))
    ).pipe(
      Layer.provide(ScorecardRepositoryMemory.layer({ scorecards: Seed.scorecards, history: Seed.history }))
    ),
    RubricRepositoryMemory.layer(Seed.questions),
    ApiKeyRepositoryMemory.layer
  )

/**
 * A server with a cache (by default one invalidated only through
 * `invalidate`) and its read count; the server provides its stores too.
 */
const cachedServer = (
  options: {
    readonly cache?: Layer.Layer<ResponseCache> | undefined
    readonly policies?: PoliciesConfig | undefined
  } = {}
) => {
  const reads: Reads = { count: 0 }
  const ports = MemoryFeeds.pipe(Layer.provideMerge(countedPorts(reads)))
  const layer = TestServer.layer(ports, { policies: options.policies ?? TestPolicies }).pipe(
    Layer.provideMerge(options.cache ?? ResponseCache.layer())
  )
  return { reads, layer }
}

/** `body` against a `cachedServer(options)`, given the server's read count. */
const withCachedServer = <A, E, R>(
  body: (reads: Reads) => Effect.Effect<A, E, R>,
  options?: Parameters<typeof cachedServer>[0]
) => {
  const { reads, layer } = cachedServer(options)
  return body(reads).pipe(Effect.provide(layer))
}

/** GET twice: the first computes, the second must be a hit that ran no query. */
const missThenHit = (reads: Reads, path: string, options?: GetOptions) =>
  Effect.gen(function* () {
    const server = yield* TestServer
    const before = reads.count
    const miss = yield* server.get(path, options)
    const afterMiss = reads.count
    const hit = yield* server.get(path, options)
    return { miss, hit, missReads: afterMiss - before, hitReads: reads.count - afterMiss }
  })

/** The same request to the server without a cache (TestServer.layerMemory): HttpApiBuilder's own encoding. */
const uncached = (path: string, options?: GetOptions) =>
  Effect.flatMap(Effect.service(TestServer), (server) => server.get(path, options))

const alpha = (type: EntityType) => slugOf(type, "alpha")

const CacheableRoutes: ReadonlyArray<string> = [
  "/api/v1/protocols?limit=50",
  "/api/v1/tokens?category=stablecoin",
  "/api/v1/vaults",
  `/api/v1/protocols/${alpha("protocol")}`,
  `/api/v1/bridges/${entityId("bridge", "alpha")}`,
  `/api/v1/protocols/${alpha("protocol")}/scorecards`,
  `/api/v1/chains/${entityId("chain", "alpha")}/scorecards`,
  `/api/v1/oracles/${alpha("oracle")}/scorecards`
]

const assertSameResponse = (actual: Response, expected: Response, what: string) => {
  assert.strictEqual(actual.status, 200, what)
  assert.strictEqual(actual.text, expected.text, `${what}: body bytes`)
  assert.strictEqual(actual.headers.get("etag"), expected.headers.get("etag"), `${what}: etag`)
  assert.strictEqual(actual.headers.get("content-type"), expected.headers.get("content-type"), what)
  assert.strictEqual(actual.headers.get("content-length"), expected.headers.get("content-length"), what)
}

const changes = (entity_type: EntityType, entity_id: string): EntityChange => ({ entity_type, entity_id })

const renamed = (type: EntityType, kind: "alpha" | "beta", name: string) => {
  const stored = Seed.entities.find((e) => e.record.id === entityId(type, kind))!
  return { ...stored, record: { ...stored.record, name } as EntityRecord }
}

const scorecardVersion = (r: Response) =>
  (r.json as { items: Array<{ scorecard_version: number }> }).items[0]!.scorecard_version

/** Publishes alpha's draft (version 3) in the memory store: the write, without any notification; the draft. */
const publishAlphaDraft = Effect.gen(function* () {
  const scorecards = yield* ScorecardRepository
  const draft = cardsOf("protocol", "alpha").find((s) => s.status === "draft")!
  const published = { ...draft, status: "published" as const, scorecard_published_at: "2026-09-01T00:00:00Z" }
  yield* scorecards.publish({
    entity_type: "protocol",
    entity_id: draft.entity_id,
    scorecard: published,
    history: {
      scorecard_id: draft.id,
      scorecard_version: 3,
      grade: draft.grade,
      letter_grade: draft.letter_grade,
      composite_score: draft.composite_score,
      intrinsic_composite_score: draft.intrinsic_composite_score,
      intrinsic_letter_grade: draft.intrinsic_letter_grade,
      published_at: "2026-09-01T00:00:00Z",
      reasoning: "re-rated"
    }
  })
  return draft
})

/** One turn of the I/O loop. */
const ioTurn = Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))

/** Yields to the I/O loop until `done` holds (the server's requests run on it); no timer involved. */
const until = <E, R>(done: Effect.Effect<boolean, E, R>) =>
  Effect.gen(function* () {
    for (let i = 0; i < 10_000 && !(yield* done); i++) yield* ioTurn
    assert.isTrue(yield* done, "the awaited state was reached")
  })

/** List variants of several types: pages, filters, searches, hidden and unknown chains, curators. */
const ListVariants: ReadonlyArray<string> = [
  "/api/v1/protocols",
  "/api/v1/protocols?limit=1",
  "/api/v1/protocols?limit=1&skip=1",
  "/api/v1/protocols?skip=2",
  "/api/v1/protocols?skip=40",
  "/api/v1/protocols?search=ALPHA",
  "/api/v1/protocols?search=ol-",
  "/api/v1/protocols?category=dex&category=lending",
  "/api/v1/protocols?category=DEX",
  "/api/v1/protocols?chain=arbitrum",
  "/api/v1/protocols?chain=nowhere",
  "/api/v1/protocols?status=draft",
  "/api/v1/protocols?status=published&limit=2",
  "/api/v1/protocols?include_inactive=true",
  "/api/v1/tokens?search=tbeta",
  "/api/v1/tokens?category=stablecoin&category=governance",
  "/api/v1/tokens?chain=ethereum&limit=1",
  `/api/v1/vaults?curator_id=${entityId("organisation", "alpha")}`,
  `/api/v1/vaults?curator_id=${entityId("organisation", "alpha").toUpperCase()}`,
  "/api/v1/vaults?include_frameworks=true",
  "/api/v1/bridges?category=messaging&limit=1&skip=1",
  "/api/v1/chains?search=a",
  "/api/v1/organisations?skip=1"
]

const typeOfList = (path: string) => path.split("/")[3]!.split("?")[0]!

describe("ResponseCache over the HTTP routes", () => {
  it.effect(
    "after a type's first list miss, its other pages, filters and searches come from the type's snapshot: no query, byte-identical to the uncached route, per projection class",
    () => {
      const { reads, layer } = cachedServer()
      const callers = ["anonymous", "free", "pro", "enterprise"] as const
      const requests = callers.flatMap((caller) => ListVariants.map((path) => ({ caller, path })))
      return Effect.gen(function* () {
        const references = yield* Effect.forEach(requests, ({ caller, path }) =>
          uncached(path, { caller })
        ).pipe(Effect.provide(TestServer.layerMemory()))
        yield* Effect.gen(function* () {
          const server = yield* TestServer
          const built = new Set<string>()
          for (const [i, { caller, path }] of requests.entries()) {
            const before = reads.count
            assertSameResponse(yield* server.get(path, { caller }), references[i]!, `${caller} ${path}`)
            const snapshot = `${caller === "free" ? "anonymous" : caller === "enterprise" ? "pro" : caller}|${typeOfList(path)}`
            if (built.has(snapshot)) assert.strictEqual(reads.count, before, `${caller} ${path}: no query`)
            else assert.isAbove(reads.count, before, `${caller} ${path}: the snapshot is built`)
            built.add(snapshot)
          }
          const stats = yield* (yield* ResponseCache).stats
          assert.strictEqual(stats.snapshots, built.size)
          assert.isAbove(stats.snapshotBytes, 0)
        }).pipe(Effect.provide(layer))
      })
    }
  )

  it.effect("a change of the type drops its snapshot: the next page is computed afresh and shows it", () =>
    withCachedServer((reads) =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const cache = yield* ResponseCache
        const entities = yield* EntityRepository
        yield* server.get("/api/v1/protocols?limit=1")
        yield* server.get("/api/v1/chains")
        yield* entities.upsert([renamed("protocol", "alpha", "Alpha Renamed")])
        assert.notInclude((yield* server.get("/api/v1/protocols?limit=2")).text, "Alpha Renamed")
        yield* cache.invalidate(changes("protocol", entityId("protocol", "alpha")))
        const before = reads.count
        assert.include((yield* server.get("/api/v1/protocols?limit=3")).text, "Alpha Renamed")
        assert.isAbove(reads.count, before, "the snapshot was built again")
        const chains = reads.count
        yield* server.get("/api/v1/chains?limit=1")
        assert.strictEqual(reads.count, chains, "the chains' snapshot is still held")
      })
    )
  )

  it.effect(
    "a snapshot larger than maxSnapshotBytes is not held: its type's list misses are computed by query, not built again",
    () => {
      const { reads, layer } = cachedServer({ cache: ResponseCache.layer({ maxSnapshotBytes: 100 }) })
      return Effect.gen(function* () {
        const reference = yield* uncached("/api/v1/protocols?limit=2").pipe(
          Effect.provide(TestServer.layerMemory())
        )
        yield* Effect.gen(function* () {
          const server = yield* TestServer
          const cache = yield* ResponseCache
          yield* server.get("/api/v1/protocols?limit=1")
          const stats = yield* cache.stats
          assert.strictEqual(stats.snapshots, 1, "what stands for the snapshot")
          assert.isAtMost(stats.snapshotBytes, 100)
          const before = reads.count
          assertSameResponse(yield* server.get("/api/v1/protocols?limit=2"), reference, "computed")
          assert.strictEqual(reads.count - before, ReadsPerList, "one query of the page, no build")
          assert.strictEqual((yield* cache.stats).snapshots, 1)
        }).pipe(Effect.provide(layer))
      })
    }
  )

  it.effect("an admin's lists never come from a snapshot", () =>
    withCachedServer((reads) =>
      Effect.gen(function* () {
        const server = yield* TestServer
        yield* server.get("/api/v1/protocols?limit=1")
        const before = reads.count
        const admin = yield* server.get("/api/v1/protocols?include_inactive=true", { caller: "admin" })
        assert.isAbove(reads.count, before)
        assert.include(admin.text, slugOf("protocol", "retired"))
      })
    )
  )

  it.effect(
    "a hit returns byte-identical bodies (and the same ETag) to a miss and to the uncached route",
    () => {
      const { reads, layer } = cachedServer()
      const callers = ["anonymous", "free", "pro", "enterprise"] as const
      const requests = callers.flatMap((caller) => CacheableRoutes.map((path) => ({ caller, path })))
      return Effect.gen(function* () {
        // The reference first, on its own server: it must not share the cached server's key store.
        const references = yield* Effect.forEach(requests, ({ caller, path }) =>
          uncached(path, { caller })
        ).pipe(Effect.provide(TestServer.layerMemory()))
        yield* Effect.gen(function* () {
          for (const [i, { caller, path }] of requests.entries()) {
            const { miss, hit, hitReads } = yield* missThenHit(reads, path, { caller })
            assertSameResponse(miss, references[i]!, `${caller} ${path} miss`)
            assertSameResponse(hit, references[i]!, `${caller} ${path} hit`)
            assert.strictEqual(hitReads, 0, `${caller} ${path}: a hit runs no query`)
          }
        }).pipe(Effect.provide(layer))
      })
    }
  )

  it.effect(
    "a Pro caller never gets the anonymous projection, and an anonymous caller never the Pro one",
    () =>
      withCachedServer((reads) =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const path = `/api/v1/protocols/${alpha("protocol")}/scorecards`
          const items = (r: Response) => (r.json as { items: Array<{ domain_scores: unknown }> }).items
          const anonymous = yield* server.get(path)
          const pro = yield* server.get(path, { caller: "pro" })
          const anonymousAgain = yield* server.get(path)
          const proAgain = yield* server.get(path, { caller: "pro" })
          assert.strictEqual(items(anonymous).length, 1)
          assert.isNull(items(anonymous)[0]!.domain_scores)
          assert.strictEqual(items(pro).length, 2)
          assert.isNotNull(items(pro)[0]!.domain_scores)
          assert.strictEqual(anonymousAgain.text, anonymous.text)
          assert.strictEqual(proAgain.text, pro.text)
          assert.notStrictEqual(anonymous.headers.get("etag"), pro.headers.get("etag"))
          // Free shares the anonymous entry, Enterprise the Pro one: hits, no query.
          const before = reads.count
          assert.strictEqual((yield* server.get(path, { caller: "free" })).text, anonymous.text)
          assert.strictEqual((yield* server.get(path, { caller: "enterprise" })).text, pro.text)
          assert.strictEqual(reads.count, before)
        })
      )
  )

  it.effect(
    "rating reads (domains, history, questions, rubric, evidence, scorecard by id) are cached per tier: each tier's hit is byte-identical to the uncached route and runs no query, and a tier the route refuses gets its refusal every time",
    () => {
      const { reads, layer } = cachedServer()
      const published = cardsOf("protocol", "alpha").find((s) => s.status === "published")!
      const slug = alpha("protocol")
      const paths = [
        ...["domains", "history", "questions", "rubric", "evidence"].map(
          (r) => `/api/v1/protocols/${slug}/${r}`
        ),
        `/api/v1/scorecards/${published.id}`
      ]
      // Enterprise first: its entries are stored before the tiers the routes refuse ask.
      const callers = ["enterprise", "pro", "free", "anonymous"] as const
      const requests = callers.flatMap((caller) => paths.map((path) => ({ caller, path })))
      return Effect.gen(function* () {
        const references = yield* Effect.forEach(requests, ({ caller, path }) =>
          uncached(path, { caller })
        ).pipe(Effect.provide(TestServer.layerMemory()))
        const refusedSomewhere = references.some((r) => r.status === 403)
        const allowedSomewhere = references.filter((r) => r.status === 200).length
        assert.isTrue(refusedSomewhere, "some tier is refused some rating read")
        assert.isAbove(allowedSomewhere, paths.length, "more than one tier reads them")
        yield* Effect.gen(function* () {
          for (const [i, { caller, path }] of requests.entries()) {
            const reference = references[i]!
            const { miss, hit, hitReads } = yield* missThenHit(reads, path, { caller })
            if (reference.status === 200) {
              assertSameResponse(miss, reference, `${caller} ${path} miss`)
              assertSameResponse(hit, reference, `${caller} ${path} hit`)
              assert.strictEqual(hitReads, 0, `${caller} ${path}: a hit runs no query`)
            } else {
              assert.strictEqual(miss.status, reference.status, `${caller} ${path}`)
              assert.strictEqual(hit.status, reference.status, `${caller} ${path} again`)
              assert.strictEqual(hit.text, reference.text, `${caller} ${path}: the refusal's body`)
            }
          }
        }).pipe(Effect.provide(layer))
      })
    }
  )

  it.effect(
    "callers share a cached answer exactly when the domain's Projection gives them one projection class",
    () =>
      withCachedServer((reads) =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const cache = yield* ResponseCache
          for (const path of CacheableRoutes)
            for (const first of CallerNames)
              for (const second of CallerNames) {
                yield* cache.clear
                assert.strictEqual((yield* server.get(path, { caller: first })).status, 200, path)
                const before = reads.count
                assert.strictEqual((yield* server.get(path, { caller: second })).status, 200, path)
                const shared = projectionClassOf(Callers5[first])
                const expected = shared !== undefined && shared === projectionClassOf(Callers5[second])
                assert.strictEqual(reads.count === before, expected, `${path}: ${first}, then ${second}`)
              }
        })
      )
  )

  it.effect("an admin's responses are never cached", () =>
    withCachedServer((reads) =>
      Effect.gen(function* () {
        const cache = yield* ResponseCache
        for (const path of CacheableRoutes) {
          const { missReads, hitReads } = yield* missThenHit(reads, path, { caller: "admin" })
          assert.isAbove(missReads, 0, path)
          assert.isAbove(hitReads, 0, `${path}: an admin's second read computes again`)
        }
        assert.strictEqual((yield* cache.stats).entries, 0)
        assert.strictEqual((yield* cache.stats).stored, 0)
      })
    )
  )

  it.effect("errors are never cached: a 404 or a 422 is computed every time", () =>
    withCachedServer((reads) =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const cache = yield* ResponseCache
        const entities = yield* EntityRepository
        const newcomer = renamed("protocol", "beta", "Newcomer")
        const created = {
          ...newcomer,
          record: { ...newcomer.record, id: "00000000-0000-4000-8000-00000000abcd", slug: "newcomer" }
        }
        const path = "/api/v1/protocols/newcomer"
        const { miss, hit, hitReads } = yield* missThenHit(reads, path)
        assert.strictEqual(miss.status, 404)
        assert.strictEqual(hit.status, 404)
        assert.isAbove(hitReads, 0)
        assert.strictEqual((yield* server.get("/api/v1/protocols?limit=500")).status, 422)
        assert.strictEqual((yield* cache.stats).entries, 0)
        // No invalidation at all: the record is found because the 404 was not kept.
        yield* entities.upsert([created])
        const found = yield* server.get(path)
        assert.strictEqual(found.status, 200)
        assert.strictEqual((found.json as { name: string }).name, "Newcomer")
      })
    )
  )

  it.effect("rate limiting, attribution and 304 still apply to hits", () =>
    withCachedServer(
      (reads) =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const path = "/api/v1/protocols?limit=50"
          const { miss, hit } = yield* missThenHit(reads, path)
          assert.strictEqual(hit.headers.get("x-attribution"), miss.headers.get("x-attribution"))
          assert.isNotNull(hit.headers.get("x-attribution"))
          assert.strictEqual(hit.headers.get("cache-control"), "public, max-age=60")
          assert.strictEqual(miss.headers.get("ratelimit-remaining"), "2")
          assert.strictEqual(hit.headers.get("ratelimit-remaining"), "1")
          const before = reads.count
          const revalidated = yield* server.get(path, {
            headers: { "if-none-match": hit.headers.get("etag")! }
          })
          assert.strictEqual(revalidated.status, 304)
          assert.strictEqual(revalidated.headers.get("etag"), hit.headers.get("etag"))
          assert.strictEqual(reads.count, before, "the 304 came from the cached ETag, no query")
          const limited = yield* server.get(path)
          assert.strictEqual(limited.status, 429)
          assert.strictEqual(limited.headers.get("cache-control"), "no-store")
        }),
      {
        policies: { limits: { ...TestPolicies.limits, anonymous: [{ limit: 3, window: "1 minute" }] } }
      }
    )
  )

  it.effect("concurrent misses of one route run one query; the others get its response", () =>
    withCachedServer((reads) =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const cache = yield* ResponseCache
        const gate = yield* Deferred.make<void>()
        reads.gate = gate
        const requests = yield* Effect.forkChild(
          Effect.forEach(Array.from({ length: 8 }), () => server.get("/api/v1/protocols"), {
            concurrency: "unbounded"
          })
        )
        // Every request has missed (and so joined the first one's computation) before the query may answer.
        yield* until(Effect.map(cache.stats, (s) => s.misses >= 8))
        assert.strictEqual((yield* cache.stats).misses, 8)
        yield* Deferred.succeed(gate, undefined)
        const responses = yield* Fiber.join(requests)
        assert.strictEqual(reads.count, ReadsPerList, "one list computation for eight requests")
        for (const r of responses) assert.strictEqual(r.text, responses[0]!.text)
      })
    )
  )

  it.effect(
    "a read that begins after a change never waits for, nor gets, a computation begun before it",
    () =>
      withCachedServer((reads) =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const cache = yield* ResponseCache
          const gate = yield* Deferred.make<void>()
          reads.gate = gate
          const untilMisses = (n: number) => until(Effect.map(cache.stats, (s) => s.misses >= n))
          const before = yield* Effect.forkChild(server.get("/api/v1/protocols"))
          yield* untilMisses(1)
          yield* cache.invalidate(changes("protocol", entityId("protocol", "beta")))
          const after = yield* Effect.forkChild(server.get("/api/v1/protocols"))
          yield* untilMisses(2)
          yield* Deferred.succeed(gate, undefined)
          yield* Fiber.join(before)
          yield* Fiber.join(after)
          assert.strictEqual(reads.count, 2 * ReadsPerList, "the later read ran its own query")
          const stats = yield* cache.stats
          assert.strictEqual(stats.refused, 1, "the earlier computation was not stored")
          assert.strictEqual(stats.entries, 1)
        })
      )
  )

  it.effect("holds at most maxEntries responses, the least recently used evicted first", () =>
    withCachedServer(
      (reads) =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const cache = yield* ResponseCache
          // Routes of one entity each: a list's miss may be answered from its type's snapshot without a query.
          const [a, b, c] = CacheableRoutes.slice(3)
          yield* server.get(a!)
          yield* server.get(b!)
          yield* server.get(a!)
          yield* server.get(c!)
          assert.strictEqual((yield* cache.stats).entries, 2)
          const before = reads.count
          yield* server.get(a!)
          yield* server.get(c!)
          assert.strictEqual(reads.count, before, "a and c are held")
          yield* server.get(b!)
          assert.isAbove(reads.count, before, "b was evicted")
        }),
      { cache: ResponseCache.layer({ maxEntries: 2 }) }
    )
  )
})

/** A source of changes the test controls: each subscription reads a new queue; `fail` is what LISTEN refusing does. */
const changeSource = Effect.gen(function* () {
  const queues = yield* Queue.unbounded<Queue.Queue<EntityChange, Error>>()
  let refuse = false
  const subscribe = Effect.gen(function* () {
    if (refuse) return yield* Effect.fail(new Error("LISTEN refused"))
    const queue = yield* Queue.unbounded<EntityChange, Error>()
    yield* Queue.offer(queues, queue)
    return Stream.fromQueue(queue)
  })
  return {
    subscribe,
    refuse: (value: boolean) => {
      refuse = value
    },
    /** The queue of the latest subscription (waits for one). */
    current: Queue.take(queues)
  }
})

/** Sends a change down the source's current subscription and waits until the cache has applied it. */
const notify = (queue: Queue.Queue<EntityChange, Error>, change: EntityChange) =>
  Effect.scoped(
    Effect.gen(function* () {
      const applied = yield* (yield* ResponseCache).applied
      yield* Queue.offer(queue, change)
      return yield* PubSub.take(applied)
    })
  )

describe("ResponseCache invalidated by notifications", () => {
  const withSource = <A, E, R>(
    body: (
      source: Effect.Success<typeof changeSource>,
      reads: Reads
    ) => Effect.Effect<A, E, R | TestServer | ResponseCache | EntityRepository | ScorecardRepository>,
    config?: ResponseCacheConfig,
    refuseFirst = false
  ) =>
    Effect.gen(function* () {
      const source = yield* changeSource
      source.refuse(refuseFirst)
      return yield* withCachedServer((reads) => body(source, reads), {
        cache: ResponseCache.layerInvalidatedBy(source.subscribe, config)
      })
    })

  it.effect(
    "a notification of an entity drops its entries and every list of its type; other entries stay",
    () =>
      withSource((source, reads) =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const entities = yield* EntityRepository
          const queue = yield* source.current
          const paths = {
            protocols: "/api/v1/protocols",
            alpha: `/api/v1/protocols/${alpha("protocol")}`,
            beta: `/api/v1/protocols/${slugOf("protocol", "beta")}`,
            chains: "/api/v1/chains"
          }
          for (const path of Object.values(paths)) yield* server.get(path)
          yield* entities.upsert([renamed("protocol", "alpha", "Alpha Renamed")])
          // Not notified yet: the cache still serves what it holds.
          assert.notInclude((yield* server.get(paths.alpha)).text, "Alpha Renamed")
          yield* notify(queue, changes("protocol", entityId("protocol", "alpha")))
          const before = reads.count
          yield* server.get(paths.beta)
          yield* server.get(paths.chains)
          assert.strictEqual(reads.count, before, "beta's detail and the chain list are still held")
          assert.include((yield* server.get(paths.alpha)).text, "Alpha Renamed")
          assert.include((yield* server.get(paths.protocols)).text, "Alpha Renamed")
        })
      )
  )

  it.effect("after a publish is notified, the next read returns the new figures", () =>
    withSource((source) =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const queue = yield* source.current
        const path = `/api/v1/protocols/${alpha("protocol")}/scorecards`
        assert.strictEqual(scorecardVersion(yield* server.get(path)), 2)
        const draft = yield* publishAlphaDraft
        yield* notify(queue, changes("protocol", draft.entity_id))
        assert.strictEqual(scorecardVersion(yield* server.get(path)), 3)
      })
    )
  )

  it.effect(
    "after a publish is notified, the next rating reads (history, domains, questions) show the new version",
    () =>
      withSource((source) =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const queue = yield* source.current
          const base = `/api/v1/protocols/${alpha("protocol")}`
          const latest = (r: Response) =>
            (r.json as { items: Array<{ scorecard_version: number }> }).items[0]!
          const version = (r: Response) => (r.json as { scorecard_version: number | null }).scorecard_version
          const read = (route: string) => server.get(`${base}/${route}`, { caller: "enterprise" })
          assert.strictEqual(latest(yield* read("history")).scorecard_version, 2)
          assert.strictEqual(version(yield* read("questions")), 2)
          const domainsBefore = (yield* read("domains")).text
          assert.strictEqual(latest(yield* read("history")).scorecard_version, 2, "served from the cache")
          const draft = yield* publishAlphaDraft
          yield* notify(queue, changes("protocol", draft.entity_id))
          assert.strictEqual(latest(yield* read("history")).scorecard_version, 3)
          assert.strictEqual(version(yield* read("questions")), 3)
          assert.notStrictEqual((yield* read("domains")).text, domainsBefore)
        })
      )
  )

  it.effect("a notification of `<type>:*` drops every entry of the type", () =>
    withSource((source, reads) =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const cache = yield* ResponseCache
        const queue = yield* source.current
        yield* server.get("/api/v1/tokens")
        yield* server.get(`/api/v1/tokens/${alpha("token")}`)
        yield* server.get("/api/v1/chains")
        yield* notify(queue, changes("token", AllOfType))
        assert.strictEqual((yield* cache.stats).entries, 1)
        const before = reads.count
        yield* server.get("/api/v1/chains")
        assert.strictEqual(reads.count, before)
      })
    )
  )

  it.effect(
    "while changes are not listened to the cache is off; listening again it starts empty and serves",
    () =>
      withSource(
        (source, reads) =>
          Effect.gen(function* () {
            const cache = yield* ResponseCache
            const path = "/api/v1/protocols"
            assert.isFalse((yield* cache.stats).active)
            const off = yield* missThenHit(reads, path)
            assert.isAbove(off.hitReads, 0, "off: every read computes")
            assert.strictEqual((yield* cache.stats).entries, 0)
            source.refuse(false)
            yield* TestClock.adjust("1 minute")
            const queue = yield* source.current
            yield* notify(queue, changes("chain", AllOfType))
            assert.isTrue((yield* cache.stats).active)
            const on = yield* missThenHit(reads, path)
            assert.strictEqual(on.hitReads, 0)
            // The stream failing (the listening connection lost) turns it off and empties it.
            source.refuse(true)
            yield* Queue.fail(queue, new Error("connection lost"))
            // The supervisor runs on this scheduler: yield until it has seen the failure (no timer involved).
            for (let i = 0; i < 10_000 && (yield* cache.stats).active; i++) yield* Effect.yieldNow
            assert.isFalse((yield* cache.stats).active)
            assert.strictEqual((yield* cache.stats).entries, 0)
            assert.isAbove((yield* missThenHit(reads, path)).hitReads, 0)
          }),
        {},
        true
      )
  )
})

/**
 * A version source the test controls, as Postgres behaves: a query answers
 * the versions as they were when it was sent (its snapshot), possibly later
 * (while `gate` is set); `bump` is a write's commit.
 */
const versionSource = () => {
  const state: {
    versions: Record<EntityType, string>
    sent: number
    gate: Deferred.Deferred<void> | undefined
    failing: boolean
  } = {
    versions: Object.fromEntries(EntityTypes.map((t) => [t, "0"])) as Record<EntityType, string>,
    sent: 0,
    gate: undefined,
    failing: false
  }
  const versions: Effect.Effect<CacheVersions, Error> = Effect.suspend(() => {
    state.sent++
    if (state.failing) return Effect.fail(new Error("versions unavailable"))
    const snapshot = { ...state.versions }
    const gate = state.gate
    return gate === undefined ? Effect.succeed(snapshot) : Effect.as(Deferred.await(gate), snapshot)
  })
  const bump = (type: EntityType) => {
    state.versions[type] = String(Number(state.versions[type]) + 1)
  }
  return { state, versions, bump }
}

/** `body` against a `cachedServer` whose cache checks the versions of a `versionSource` (and listens to no change). */
const withVersionedServer = <A, E, R>(
  body: (source: ReturnType<typeof versionSource>, reads: Reads) => Effect.Effect<A, E, R>
) => {
  const source = versionSource()
  return withCachedServer((reads) => body(source, reads), {
    cache: ResponseCache.layer({ versions: source.versions })
  })
}

describe("ResponseCache checked against versions (strict across processes)", () => {
  it.effect(
    "a list snapshot is held under its type's version: a page read after the version changed is computed from a snapshot built afresh",
    () =>
      withVersionedServer((source, reads) =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const entities = yield* EntityRepository
          yield* server.get("/api/v1/protocols?limit=1")
          yield* entities.upsert([renamed("protocol", "alpha", "Alpha Renamed")])
          const before = reads.count
          assert.notInclude((yield* server.get("/api/v1/protocols?limit=2")).text, "Alpha Renamed")
          assert.strictEqual(reads.count, before, "the same version's snapshot answered")
          source.bump("protocol")
          assert.include((yield* server.get("/api/v1/protocols?limit=2")).text, "Alpha Renamed")
          assert.isAbove(reads.count, before, "a snapshot was built under the new version")
        })
      )
  )

  it.effect(
    "a read that begins after its type's version changed gets the state after the change, with no notification at all; other types stay cached",
    () =>
      withVersionedServer((source, reads) =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const entities = yield* EntityRepository
          const scorecards = `/api/v1/protocols/${alpha("protocol")}/scorecards`
          const detail = `/api/v1/protocols/${alpha("protocol")}`
          assert.strictEqual((yield* missThenHit(reads, scorecards)).hitReads, 0)
          assert.strictEqual((yield* missThenHit(reads, detail)).hitReads, 0)
          assert.strictEqual((yield* missThenHit(reads, "/api/v1/chains")).hitReads, 0)
          // A write whose version is not bumped is not seen: the version is what makes reads current.
          yield* entities.upsert([renamed("protocol", "alpha", "Alpha Renamed")])
          assert.notInclude((yield* server.get(detail)).text, "Alpha Renamed")
          yield* publishAlphaDraft
          source.bump("protocol")
          assert.include((yield* server.get(detail)).text, "Alpha Renamed")
          assert.strictEqual(scorecardVersion(yield* server.get(scorecards)), 3)
          const before = reads.count
          yield* server.get("/api/v1/chains")
          assert.strictEqual(reads.count, before, "the chain list is still served from the cache")
        })
      )
  )

  it.effect(
    "a read that begins while a version query is under way is answered by the next query, never by that one",
    () =>
      withVersionedServer((source, reads) =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const cache = yield* ResponseCache
          const path = `/api/v1/protocols/${alpha("protocol")}/scorecards`
          const warm = yield* missThenHit(reads, path)
          assert.strictEqual(scorecardVersion(warm.hit), 2)
          // A query is sent for a first read, and answers late with the versions of when it was sent.
          const gate = yield* Deferred.make<void>()
          source.state.gate = gate
          const sentBefore = source.state.sent
          const early = yield* Effect.forkChild(server.get(path))
          yield* until(Effect.sync(() => source.state.sent === sentBefore + 1))
          source.state.gate = undefined
          // The publish commits while that query is under way; then eight reads begin.
          yield* publishAlphaDraft
          source.bump("protocol")
          const readsBefore = reads.count
          const late = yield* Effect.forkChild(
            Effect.forEach(Array.from({ length: 8 }), () => server.get(path), { concurrency: "unbounded" })
          )
          // Their queries are sent beside the one under way (MaxVersionQueries), after the commit:
          // they are answered with the state after it while the first query has not answered yet.
          for (const r of yield* Fiber.join(late)) assert.strictEqual(scorecardVersion(r), 3)
          assert.isUndefined(early.pollUnsafe(), "the first read still waits for its own query")
          const sentForTheEight = source.state.sent - sentBefore - 1
          assert.isAtLeast(sentForTheEight, 1)
          assert.isAtMost(sentForTheEight, 8, "no read sent more than one query")
          assert.isAtMost((yield* cache.stats).versionReads, source.state.sent)
          yield* Deferred.succeed(gate, undefined)
          assert.strictEqual(scorecardVersion(yield* Fiber.join(early)), 2, "began before the commit")
          assert.strictEqual(reads.count - readsBefore, warm.missReads, "the eight shared one computation")
        })
      )
  )

  it.effect(
    "at most MaxVersionQueries version queries are under way at once; the reads that arrive meanwhile share the next one",
    () =>
      withVersionedServer((source) =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const cache = yield* ResponseCache
          const path = `/api/v1/protocols/${alpha("protocol")}`
          yield* server.get(path)
          const gate = yield* Deferred.make<void>()
          source.state.gate = gate
          const sentBefore = source.state.sent
          // One read after the other, each sending its own query (both held at the gate).
          const first: Array<Fiber.Fiber<{ readonly status: number }, unknown>> = []
          for (let i = 1; i <= MaxVersionQueries; i++) {
            first.push(yield* Effect.forkChild(server.get(path)))
            yield* until(Effect.sync(() => source.state.sent === sentBefore + i))
          }
          const rest = yield* Effect.forkChild(
            Effect.forEach(Array.from({ length: 8 }), () => server.get(path), { concurrency: "unbounded" })
          )
          yield* until(Effect.map(cache.stats, (s) => s.versionWaiting === 8))
          assert.strictEqual(source.state.sent, sentBefore + MaxVersionQueries, "no query beyond the bound")
          yield* Deferred.succeed(gate, undefined)
          for (const r of [...(yield* Fiber.joinAll(first)), ...(yield* Fiber.join(rest))])
            assert.strictEqual(r.status, 200)
          assert.strictEqual(source.state.sent, sentBefore + MaxVersionQueries + 1, "one query for the eight")
        })
      )
  )

  it.effect("when the versions cannot be read, every read is computed and nothing is stored", () =>
    withVersionedServer((source, reads) =>
      Effect.gen(function* () {
        const cache = yield* ResponseCache
        const path = "/api/v1/protocols"
        source.state.failing = true
        const failing = yield* missThenHit(reads, path)
        assert.strictEqual(failing.miss.status, 200)
        assert.isAbove(failing.hitReads, 0, "the second read computed again")
        const stats = yield* cache.stats
        assert.strictEqual(stats.entries, 0)
        assert.strictEqual(stats.versionFailures, 2)
        source.state.failing = false
        assert.strictEqual((yield* missThenHit(reads, path)).hitReads, 0, "cached again once they can")
      })
    )
  )

  it.effect(
    "with a version source the cache serves while changes are not listened to, and still sees every change",
    () => {
      const source = versionSource()
      const refused = Effect.fail(new Error("LISTEN refused"))
      const { reads, layer } = cachedServer({
        cache: ResponseCache.layerInvalidatedBy(refused, { versions: source.versions })
      })
      return Effect.gen(function* () {
        const server = yield* TestServer
        const cache = yield* ResponseCache
        const path = `/api/v1/protocols/${alpha("protocol")}/scorecards`
        const stats = yield* cache.stats
        assert.isTrue(stats.active)
        assert.isFalse(stats.listening)
        assert.strictEqual((yield* missThenHit(reads, path)).hitReads, 0)
        yield* publishAlphaDraft
        source.bump("protocol")
        assert.strictEqual(scorecardVersion(yield* server.get(path)), 3)
      }).pipe(Effect.provide(layer))
    }
  )
})
