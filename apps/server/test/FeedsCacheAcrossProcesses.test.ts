/**
 * The incident feed, quantum readiness (league table and per chain) and
 * compare through the response cache, across processes
 * (docs/adr/0007-projection-cache.md): process A writes through the
 * production adapters; process B serves HTTP with the production cache and
 * version source but a change stream that never delivers anything (an
 * infinitely late NOTIFY), so only the versions can make B see A's writes.
 * Process U serves the same database without a cache: the reference for
 * every body, byte for byte.
 */
import { assert, describe, it } from "@effect/vitest"
import { issueApiKey } from "@ratings/adapters-http/server/ApiKeyCrypto"
import { serve } from "@ratings/adapters-http/server/HttpServerLive"
import { ResponseCache } from "@ratings/adapters-http/server/cache/ResponseCache"
import { freePort } from "@ratings/adapters-sql/EmbeddedPostgres"
import * as PgCacheInvalidation from "@ratings/adapters-sql/PgCacheInvalidation"
import type { Tier } from "@ratings/domain/model/Caller"
import { ApiKeyRepository } from "@ratings/domain/ports/ApiKeyRepository"
import { EntityRepository } from "@ratings/domain/ports/EntityRepository"
import { IncidentRepository } from "@ratings/domain/ports/IncidentRepository"
import { QuantumSnapshotStore } from "@ratings/domain/ports/QuantumSnapshotStore"
import { RubricRepository } from "@ratings/domain/ports/RubricRepository"
import { makeSnapshot } from "@ratings/domain/quantum/QuantumSnapshot"
import { Publisher } from "@ratings/domain/services/Publisher"
import { recordOf, served } from "@ratings/domain/test-support/contract/events-incident-fixtures"
import { snapshotAt } from "@ratings/domain/test-support/contract/events-quantum-snapshot-store"
import { Context, Effect, Layer, Option, Stream } from "effect"
import { buildAlone, importedDatabase, processOf } from "./ServerProcess.ts"

/** The production cache with the production versions, deaf to every notification. */
const silentCache = ResponseCache.layerInvalidatedBy(Effect.succeed(Stream.never), {
  versions: Effect.flatMap(PgCacheInvalidation.CacheInvalidation, (i) => i.versions)
}).pipe(Layer.provide(PgCacheInvalidation.layer))

/** A server process over the database, with the silent cache (B) or without any (U). */
const serverOf = (url: string, cached: boolean) =>
  Effect.gen(function* () {
    const port = yield* freePort
    if (!cached) {
      const u = yield* buildAlone(processOf(url))
      yield* buildAlone(
        serve({ port, host: "127.0.0.1", accessLog: false }).pipe(Layer.provide(Layer.succeedContext(u)))
      )
      return { base: `http://127.0.0.1:${port}`, cache: undefined }
    }
    const b = yield* buildAlone(silentCache.pipe(Layer.provideMerge(processOf(url))))
    const cache = Context.get(b, ResponseCache)
    yield* buildAlone(
      serve({
        port,
        host: "127.0.0.1",
        accessLog: false,
        responseCache: Layer.succeed(ResponseCache, cache)
      }).pipe(Layer.provide(Layer.succeedContext(b)))
    )
    return { base: `http://127.0.0.1:${port}`, cache }
  })

/** The example (lendwell rated, with a v3 draft; ethereum; one lendwell incident; a sample snapshot), and A. */
const setUp = Effect.gen(function* () {
  const { url, a } = yield* importedDatabase
  const keyOf = (tier: Exclude<Tier, "anonymous">) =>
    Effect.gen(function* () {
      const { key, record } = issueApiKey({ name: `${tier} feeds`, tier })
      const keys = yield* Effect.provideContext(Effect.service(ApiKeyRepository), a)
      yield* keys.create(record)
      return key
    })
  const keys = { pro: yield* keyOf("pro"), enterprise: yield* keyOf("enterprise") }
  const b = yield* serverOf(url, true)
  const u = yield* serverOf(url, false)
  return { a, b, u, keys }
})

interface Got {
  readonly status: number
  readonly body: string
}

const get = (base: string, path: string, apiKey?: string) =>
  Effect.promise(async (): Promise<Got> => {
    const response = await fetch(`${base}/api/v1${path}`, {
      headers: apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` }
    })
    return { status: response.status, body: await response.text() }
  })

type Env = Effect.Success<typeof setUp>

/**
 * Reads `path` from B twice (the second a hit of B's cache) and once from U:
 * all three 200 and byte-identical. Returns the parsed body.
 */
const cachedAndEqual = (env: Env, path: string, apiKey?: string) =>
  Effect.gen(function* () {
    const cache = env.b.cache!
    const first = yield* get(env.b.base, path, apiKey)
    const hits = (yield* cache.stats).hits
    const second = yield* get(env.b.base, path, apiKey)
    const reference = yield* get(env.u.base, path, apiKey)
    assert.strictEqual(first.status, 200, `${path}: ${first.body}`)
    assert.strictEqual((yield* cache.stats).hits, hits + 1, `${path}: the second read is a hit`)
    assert.strictEqual(second.body, first.body, path)
    assert.strictEqual(reference.body, first.body, `${path}: the cached body is the uncached one`)
    return JSON.parse(first.body) as Record<string, unknown>
  })

/** A service of process A. */
const inA = <I, S>(env: Env, tag: Context.Key<I, S>) => Effect.provideContext(Effect.service(tag), env.a)

interface Feed {
  readonly items: ReadonlyArray<{ readonly incident_id: string; readonly slug: string | null }>
  readonly total: number
}

describe("incidents, quantum readiness and compare cached across processes", () => {
  it.live(
    "each read is byte-identical to the uncached one, and a write committed in another process is visible to the next read without any notification",
    () =>
      Effect.gen(function* () {
        const env = yield* setUp
        const feedPath = "/incidents?min_status=rumored&limit=50"

        // Compare (Enterprise): a publish of lendwell's re-rating shows at once; a Pro caller is refused, never served the entry.
        const comparePath = "/compare?entity=protocols&ids=lendwell&fields=slug,composite_score"
        const before = (yield* cachedAndEqual(env, comparePath, env.keys.enterprise)) as {
          items: ReadonlyArray<{ composite_score: number }>
        }
        assert.strictEqual((yield* get(env.b.base, comparePath, env.keys.pro)).status, 403)
        const published = yield* Effect.flatMap(inA(env, Publisher), (p) =>
          p.publish({ entity_type: "protocol", slug: "lendwell", reasoning: "re-rated", actor: "test" })
        )
        const after = (yield* cachedAndEqual(env, comparePath, env.keys.enterprise)) as typeof before
        assert.strictEqual(after.items[0]!.composite_score, published.scorecard.composite_score)
        assert.notStrictEqual(after.items[0]!.composite_score, before.items[0]!.composite_score)

        // The incident feed: an incident written in A is listed by B's next read.
        const feed = (yield* cachedAndEqual(env, feedPath)) as unknown as Feed
        const record = recordOf(served(9001, { slug: "lendwell", protocol_name: "Lendwell" }))
        yield* Effect.flatMap(inA(env, IncidentRepository), (r) => r.upsert(record))
        const withNew = (yield* cachedAndEqual(env, feedPath)) as unknown as Feed
        assert.strictEqual(withNew.total, feed.total + 1)
        assert.strictEqual(withNew.items.find((i) => i.incident_id === record.incident_id)?.slug, "lendwell")

        // Hiding lendwell in A unnames it in B's feed at once (the feed depends on the protocols too).
        const lendwell = Option.getOrThrow(
          yield* Effect.flatMap(inA(env, EntityRepository), (e) => e.findBySlug("protocol", "lendwell"))
        )
        yield* Effect.flatMap(inA(env, EntityRepository), (e) =>
          e.setStatus("protocol", lendwell.id, "scoring", new Date().toISOString())
        )
        const hidden = (yield* cachedAndEqual(env, feedPath)) as unknown as Feed
        assert.isTrue(
          hidden.items.every((i) => i.slug === null),
          "no incident names a hidden protocol"
        )

        // Quantum readiness: a snapshot saved in A is served by B's next read, table and chain.
        yield* cachedAndEqual(env, "/quantum-readiness")
        yield* cachedAndEqual(env, "/chains/ethereum/quantum-readiness")
        const fresh = makeSnapshot(
          { rows: snapshotAt(0).rows, rows_skipped: 0 },
          { now: Date.now(), ttlMillis: 24 * 3_600_000 }
        )
        yield* Effect.flatMap(inA(env, QuantumSnapshotStore), (s) => s.save(fresh))
        const table = yield* cachedAndEqual(env, "/quantum-readiness")
        assert.strictEqual(table.as_of, fresh.as_of)
        const chain = yield* cachedAndEqual(env, "/chains/ethereum/quantum-readiness")
        assert.strictEqual(chain.as_of, fresh.as_of)
        assert.strictEqual((yield* env.b.cache!.stats).invalidated, 0, "no notification reached B")
      }),
    120_000
  )

  it.live(
    "the methodology is cached byte-identical to the uncached one, for every caller alike, and a catalogue replaced in another process shows in the next read",
    () =>
      Effect.gen(function* () {
        const env = yield* setUp
        const before = (yield* cachedAndEqual(env, "/methodology")) as {
          readonly entity_types: ReadonlyArray<{ readonly type: string; readonly questions: number }>
        }
        assert.strictEqual(
          (yield* get(env.b.base, "/methodology", env.keys.pro)).body,
          JSON.stringify(before)
        )
        const questions = yield* Effect.flatMap(inA(env, RubricRepository), (r) => r.questions("protocol"))
        assert.isAbove(questions.length, 1)
        yield* Effect.flatMap(inA(env, RubricRepository), (r) => r.replace("protocol", questions.slice(1)))
        const after = (yield* cachedAndEqual(env, "/methodology")) as typeof before
        const protocols = (m: typeof before) => m.entity_types.find((t) => t.type === "protocol")!.questions
        assert.strictEqual(protocols(after), protocols(before) - 1)
        assert.strictEqual((yield* env.b.cache!.stats).invalidated, 0, "no notification reached B")
      }),
    120_000
  )

  it.live(
    "a cached quantum body is never served past the instant its stale flag flips: the next read after the snapshot expires is flagged, as uncached",
    () =>
      Effect.gen(function* () {
        const env = yield* setUp
        const now = Date.now()
        // Fetched a second ago, expiring 2.5 s from now; then a refresh fails.
        const expiring = makeSnapshot(
          { rows: snapshotAt(0).rows, rows_skipped: 0 },
          { now: now - 1000, ttlMillis: 3500 }
        )
        yield* Effect.flatMap(inA(env, QuantumSnapshotStore), (s) =>
          Effect.andThen(
            s.save(expiring),
            s.recordOutcome({ at: new Date(now).toISOString(), ok: false, error: "HTTP 500" })
          )
        )
        const paths = ["/quantum-readiness", "/chains/ethereum/quantum-readiness"]
        for (const path of paths) assert.isUndefined((yield* cachedAndEqual(env, path)).stale, path)
        yield* Effect.sleep(Math.max(0, Date.parse(expiring.expires_at) - Date.now()) + 50)
        for (const path of paths) {
          const got = yield* get(env.b.base, path)
          assert.strictEqual(JSON.parse(got.body).stale, true, `${path}: flagged once expired`)
          assert.strictEqual(got.body, (yield* get(env.u.base, path)).body, path)
        }
      }),
    120_000
  )
})
