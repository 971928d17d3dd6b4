/**
 * Export and compare over the real server, on both backends: spec part 4
 * "Pro and Enterprise utilities" (parameters, published entities only, the
 * __export_id watermark, latest published figures), part 5 rule 3 (tiers),
 * part 7 (422 for a missing entity or fields) and part 8 (export limit 1 to
 * 5000; 5 exports per rolling 24 hours, every tier).
 *
 * Every test that exports uses keys of its own account, so the quota one
 * test spends does not reach another.
 */
import { assert, describe, layer } from "@effect/vitest"
import { PgClient } from "@effect/sql-pg"
import * as PgExportLog from "@ratings/adapters-sql/PgExportLog"
import type { EntityRecord } from "@ratings/domain/model/Entity"
import type { KeyTier } from "@ratings/domain/model/Caller"
import { Caller } from "@ratings/domain/model/Caller"
import { EntityRepository } from "@ratings/domain/ports/EntityRepository"
import { ExportLog } from "@ratings/domain/ports/ExportLog"
import { IdGenerator } from "@ratings/domain/ports/IdGenerator"
import { StoreError } from "@ratings/domain/ports/StoreError"
import { ExportPageSize, ExportService } from "@ratings/domain/services/ExportService"
import { Effect, Layer, Option } from "effect"
import { type CallerName, entityId, Seed, slugOf } from "./fixtures.ts"
import { type Backend, MemoryFeeds, onEachBackend, type ServerIt, TestServer } from "./TestServer.ts"
import { ApiKeyRepositoryMemory } from "@ratings/domain/ports/memory/ApiKeyRepositoryMemory"
import { EntityRepositoryMemory } from "@ratings/domain/ports/memory/EntityRepositoryMemory"
import { RubricRepositoryMemory } from "@ratings/domain/ports/memory/RubricRepositoryMemory"
import { ScorecardRepositoryMemory } from "@ratings/domain/ports/memory/ScorecardRepositoryMemory"

// biome-ignore lint/suspicious/noExplicitAny: response bodies are probed field by field in assertions
type Json = { readonly [key: string]: any }

const api = (path: string) => `/api/v1${path}`

const get = (path: string, caller?: CallerName) =>
  Effect.gen(function* () {
    return yield* (yield* TestServer).get(api(path), { caller })
  })

/** A key of a fresh account, so this test's exports are the only ones counted against it. */
const freshKey = (tier: KeyTier = "pro") =>
  Effect.gen(function* () {
    const server = yield* TestServer
    const account = crypto.randomUUID()
    const { key, id } = yield* server.createKey(tier, { account_id: account })
    const authorization = `Bearer ${key}`
    const call = (path: string) => server.get(api(path), { authorization })
    return { account, key_id: id, authorization, call }
  })

/** A small RFC 4180 reader, written to the RFC rather than to our writer, to read back what was served. */
const parseCsv = (text: string): Array<Array<string>> => {
  const rows: Array<Array<string>> = []
  let row: Array<string> = []
  let field = ""
  let i = 0
  let quoted = false
  while (i < text.length) {
    const c = text[i]!
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"'
        i += 2
        continue
      }
      if (c === '"') {
        quoted = false
        i++
        continue
      }
      field += c
      i++
      continue
    }
    if (c === '"' && field === "") {
      quoted = true
      i++
    } else if (c === ",") {
      row.push(field)
      field = ""
      i++
    } else if (c === "\r" && text[i + 1] === "\n") {
      row.push(field)
      rows.push(row)
      row = []
      field = ""
      i += 2
    } else {
      assert.notStrictEqual(c, "\n", "a bare LF outside quotes is not RFC 4180")
      field += c
      i++
    }
  }
  assert.strictEqual(field, "", "the document ends with CRLF")
  return rows
}

const publishedProtocols = Effect.map(get("/protocols?limit=200"), (r) =>
  ((r.json as Json).items as ReadonlyArray<Json>).map((x) => x.slug as string)
)

/** The latest published scorecard of an entity as the scorecard route serves it (null when unrated). */
const latestPublished = (slug: string) =>
  Effect.map(
    get(`/protocols/${slug}/scorecards`, "enterprise"),
    (r) => ((r.json as Json).items[0] ?? null) as Json | null
  )

const exportRoutes = (it: ServerIt, backend: Backend) => {
  describe("spec part 4 export.csv and export.json", () => {
    it.effect("tier: Pro and above; anonymous 401 missing_key, Free 403 insufficient_tier", () =>
      Effect.gen(function* () {
        for (const route of ["/export.json", "/export.csv"]) {
          const anonymous = yield* get(`${route}?entity=protocol&fields=slug`)
          assert.strictEqual(anonymous.status, 401, route)
          assert.deepStrictEqual(anonymous.json, { detail: { error: "missing_key" } })
          const free = yield* (yield* freshKey("free")).call(`${route}?entity=protocol&fields=slug`)
          assert.strictEqual(free.status, 403, route)
          assert.strictEqual((free.json as Json).detail.error, "insufficient_tier")
          for (const tier of ["pro", "enterprise"] as const) {
            const ok = yield* (yield* freshKey(tier)).call(`${route}?entity=protocol&fields=slug`)
            assert.strictEqual(ok.status, 200, `${route} ${tier}`)
          }
        }
      })
    )

    it.effect(
      "published entities only, in slug order, each with its latest published scorecard's figures (not a draft)",
      () =>
        Effect.gen(function* () {
          const key = yield* freshKey()
          const r = yield* key.call(
            "/export.json?entity=protocols&fields=slug,name,grade,letter_grade,composite_score,domain_scores,last_rated_at"
          )
          assert.strictEqual(r.status, 200, r.text)
          const rows = r.json as ReadonlyArray<Json>
          assert.deepStrictEqual(
            rows.map((x) => x.slug),
            yield* publishedProtocols
          )
          for (const hidden of ["private", "retired", "draft", "scoring", "approved"] as const) {
            assert.notInclude(
              rows.map((x) => x.slug),
              slugOf("protocol", hidden)
            )
          }
          for (const row of rows) {
            const card = yield* latestPublished(row.slug)
            assert.strictEqual(row.composite_score, card?.composite_score ?? null, row.slug)
            assert.strictEqual(row.grade, card?.grade ?? null, row.slug)
            assert.strictEqual(row.letter_grade, card?.letter_grade ?? null, row.slug)
            assert.strictEqual(row.last_rated_at, card?.last_rated_at ?? null, row.slug)
          }
          const alpha = rows.find((x) => x.slug === slugOf("protocol", "alpha"))!
          const v2 = Seed.scorecards.find(
            (c) => c.entity_id === entityId("protocol", "alpha") && c.scorecard_version === 2
          )!
          assert.strictEqual(
            alpha.composite_score,
            v2.composite_score,
            "version 2 is published; 3 is a draft"
          )
          assert.deepStrictEqual(alpha.domain_scores, v2.domain_scores)
        })
    )

    it.effect("entity is singular or plural, any case; a missing or unknown entity is a 422 naming it", () =>
      Effect.gen(function* () {
        const key = yield* freshKey()
        const singular = (yield* key.call("/export.json?entity=bridge&fields=slug")).json
        const plural = (yield* key.call("/export.json?entity=Bridges&fields=slug"))
          .json as ReadonlyArray<Json>
        assert.deepStrictEqual(
          (singular as ReadonlyArray<Json>).map((x) => x.slug),
          plural.map((x) => x.slug)
        )
        for (const query of ["fields=slug", "entity=protocolz&fields=slug", "entity=&fields=slug"]) {
          const r = yield* key.call(`/export.csv?${query}`)
          assert.strictEqual(r.status, 422, query)
          assert.deepStrictEqual((r.json as Json).detail[0].loc, ["query", "entity"], query)
        }
      })
    )

    it.effect(
      "fields is required and drawn from the spec's list; unknown names are a 422 that lists the allowed",
      () =>
        Effect.gen(function* () {
          const key = yield* freshKey()
          for (const query of [
            "entity=protocol",
            "entity=protocol&fields=",
            "entity=protocol&fields=slug,score"
          ]) {
            const r = yield* key.call(`/export.json?${query}`)
            assert.strictEqual(r.status, 422, query)
            const [entry] = (r.json as Json).detail
            assert.deepStrictEqual(entry.loc, ["query", "fields"], query)
          }
          const unknown = yield* key.call("/export.json?entity=protocol&fields=slug,score")
          assert.include((unknown.json as Json).detail[0].msg, "score")
          assert.include((unknown.json as Json).detail[0].msg, "composite_score")
        })
    )

    it.effect("spec part 8: limit is 1 to 5000, default 1000; outside is a 422", () =>
      Effect.gen(function* () {
        const key = yield* freshKey()
        for (const limit of ["0", "5001", "ten", "-1"]) {
          const r = yield* key.call(`/export.json?entity=protocol&fields=slug&limit=${limit}`)
          assert.strictEqual(r.status, 422, limit)
          assert.deepStrictEqual((r.json as Json).detail[0].loc, ["query", "limit"])
        }
        const one = (yield* key.call("/export.json?entity=protocol&fields=slug&limit=1"))
          .json as ReadonlyArray<Json>
        assert.lengthOf(one, 1)
      })
    )

    it.effect("every export has its own __export_id, recorded with who exported what and when", () =>
      Effect.gen(function* () {
        const key = yield* freshKey()
        const first = yield* key.call("/export.json?entity=protocol&fields=slug,grade")
        const second = yield* key.call("/export.csv?entity=chain&fields=name")
        const firstRows = first.json as ReadonlyArray<Json>
        const firstId = firstRows[0]!.__export_id as string
        assert.isTrue(firstRows.every((row) => row.__export_id === firstId))
        assert.strictEqual(first.headers.get("x-export-id"), firstId)
        const csv = parseCsv(second.text)
        const secondId = csv[1]![1]!
        assert.notStrictEqual(secondId, firstId)
        assert.strictEqual(second.headers.get("x-export-id"), secondId)
        const log = yield* ExportLog
        const record = Option.getOrThrow(yield* Effect.orDie(log.find(firstId)))
        assert.strictEqual(record.account_id, key.account)
        assert.strictEqual(record.key_id, key.key_id, "the key that made it, not only its account")
        assert.strictEqual(record.entity_type, "protocol")
        assert.strictEqual(record.format, "json")
        assert.deepStrictEqual(record.fields, ["slug", "grade"])
        assert.strictEqual(record.row_count, firstRows.length)
        assert.isBelow(Math.abs(Date.parse(record.created_at) - Date.now()), 60_000)
        const csvRecord = Option.getOrThrow(yield* Effect.orDie(log.find(secondId)))
        assert.strictEqual(csvRecord.format, "csv")
        assert.strictEqual(csvRecord.entity_type, "chain")
      })
    )

    it.effect(
      "CSV is RFC 4180: header row, CRLF, quotes, commas and newlines in names survive a round trip",
      () =>
        Effect.gen(function* () {
          const entities = yield* EntityRepository
          const base = Seed.entities.find((e) => e.record.slug === slugOf("oracle", "beta"))!
          const tricky = 'Quote "Oracle", Inc.\nSecond line, with\r\ncrlf'
          const record: EntityRecord = {
            ...base.record,
            id: crypto.randomUUID(),
            slug: "oracle-tricky-name",
            name: tricky
          }
          yield* Effect.orDie(entities.upsert([{ entity_type: "oracle", record }]))
          const key = yield* freshKey()
          const csv = yield* key.call(
            "/export.csv?entity=oracles&fields=slug,name,composite_score,domain_scores"
          )
          assert.strictEqual(csv.status, 200)
          assert.match(csv.headers.get("content-type")!, /^text\/csv/)
          assert.match(
            csv.headers.get("content-disposition")!,
            /^attachment; filename="oracle-export-[0-9a-f-]+\.csv"$/
          )
          const table = parseCsv(csv.text)
          assert.deepStrictEqual(table[0], [
            "slug",
            "name",
            "composite_score",
            "domain_scores",
            "__export_id"
          ])
          const row = table.find((r) => r[0] === "oracle-tricky-name")
          assert.isDefined(row)
          assert.strictEqual(row![1], tricky)
          assert.strictEqual(row![2], "", "null is an empty field")
          const json = (yield* key.call(
            "/export.json?entity=oracles&fields=slug,name,composite_score,domain_scores"
          )).json as ReadonlyArray<Json>
          assert.deepStrictEqual(
            table.slice(1).map((r) => r[0]),
            json.map((r) => r.slug)
          )
          for (const [i, r] of json.entries()) {
            const cells = table[i + 1]!
            assert.strictEqual(cells[1], r.name)
            assert.strictEqual(cells[2], r.composite_score === null ? "" : String(r.composite_score))
            assert.deepStrictEqual(cells[3] === "" ? null : JSON.parse(cells[3]!), r.domain_scores)
          }
        })
    )

    it.effect(
      "CSV and JSON are streamed page by page: 5000 rows in list order, each entity once, chunked with no Content-Length",
      () =>
        Effect.gen(function* () {
          const entities = yield* EntityRepository
          const base = Seed.entities.find((e) => e.entity_type === "bridge")!
          const bulk = Array.from({ length: 5000 + 2 * ExportPageSize + 7 }, (_, i) => ({
            entity_type: "bridge" as const,
            record: {
              ...base.record,
              id: crypto.randomUUID(),
              slug: `bulk-bridge-${String(i).padStart(5, "0")}`,
              name: `Bulk, "bridge" ${i}`
            } as EntityRecord
          }))
          yield* Effect.orDie(entities.upsert(bulk))
          const expected = (yield* Effect.orDie(entities.published("bridge", 5000))).map((r) => r.slug)
          assert.lengthOf(expected, 5000)
          assert.isTrue(expected.every((slug, i) => i === 0 || expected[i - 1]! < slug))
          const key = yield* freshKey()
          const csv = yield* key.call("/export.csv?entity=bridges&fields=slug,name&limit=5000")
          assert.strictEqual(csv.status, 200)
          assert.strictEqual(csv.headers.get("content-length"), null)
          assert.strictEqual(csv.headers.get("transfer-encoding"), "chunked")
          const table = parseCsv(csv.text)
          assert.deepStrictEqual(
            table.slice(1).map((r) => r[0]),
            expected
          )
          const names = new Map(bulk.map((e) => [e.record.slug, e.record.name]))
          const bulkRows = table.slice(1).filter((r) => names.has(r[0]!))
          assert.isAbove(bulkRows.length, 4900)
          assert.isTrue(bulkRows.every((r) => r[1] === names.get(r[0]!)))
          const json = yield* key.call("/export.json?entity=bridge&fields=slug&limit=5000")
          assert.strictEqual(json.status, 200)
          assert.match(json.headers.get("content-type")!, /^application\/json/)
          assert.strictEqual(json.headers.get("content-length"), null)
          assert.deepStrictEqual(
            (json.json as ReadonlyArray<Json>).map((r) => r.slug),
            expected
          )
          const exportId = json.headers.get("x-export-id")!
          assert.isTrue((json.json as ReadonlyArray<Json>).every((r) => r.__export_id === exportId))
          const logged = Option.getOrThrow(yield* Effect.orDie((yield* ExportLog).find(exportId)))
          assert.strictEqual(logged.row_count, 5000)
        }),
      { timeout: 120_000 }
    )

    it.effect(
      "spec part 8: 5 exports per rolling 24 hours per account, CSV and JSON together; the sixth is a 429 with Retry-After",
      () =>
        Effect.gen(function* () {
          for (const tier of ["pro", "enterprise"] as const) {
            const key = yield* freshKey(tier)
            for (let n = 1; n <= 5; n++) {
              const route = n % 2 === 0 ? "/export.csv" : "/export.json"
              const ok = yield* key.call(`${route}?entity=vault&fields=slug`)
              assert.strictEqual(ok.status, 200, `${tier} export ${n}`)
            }
            const sixth = yield* key.call("/export.json?entity=vault&fields=slug")
            assert.strictEqual(sixth.status, 429, tier)
            const retryAfter = Number(sixth.headers.get("retry-after"))
            assert.isAbove(retryAfter, 23 * 3600, tier)
            assert.isAtMost(retryAfter, 24 * 3600, tier)
            assert.deepStrictEqual(sixth.json, {
              detail: { error: "export_quota_exceeded", retry_after: retryAfter, quota: 5 }
            })
            // Another account of the same tier is not affected.
            assert.strictEqual(
              (yield* (yield* freshKey(tier)).call("/export.json?entity=vault&fields=slug")).status,
              200
            )
          }
        })
    )

    it.effect("a refused or failed export spends no quota: 422s and 403s do not count", () =>
      Effect.gen(function* () {
        const key = yield* freshKey()
        for (let n = 0; n < 6; n++) yield* key.call("/export.json?entity=vault&fields=nope")
        for (let n = 1; n <= 5; n++) {
          assert.strictEqual(
            (yield* key.call("/export.json?entity=vault&fields=slug")).status,
            200,
            `export ${n}`
          )
        }
      })
    )

    it.effect("a HEAD of an export is a 405 (Allow: GET) that records nothing and spends no quota", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const key = yield* freshKey()
        for (const path of [
          "/export.csv?entity=vault&fields=slug",
          "/export.json?entity=vault&fields=slug"
        ]) {
          for (let n = 0; n < 3; n++) {
            const head = yield* Effect.promise(() =>
              fetch(server.baseUrl + api(path), {
                method: "HEAD",
                headers: { authorization: key.authorization }
              })
            )
            assert.strictEqual(head.status, 405, path)
            assert.strictEqual(head.headers.get("allow"), "GET")
            assert.isNull(head.headers.get("x-export-id"), "no export was made")
          }
        }
        for (let n = 1; n <= 5; n++) {
          assert.strictEqual(
            (yield* key.call("/export.csv?entity=vault&fields=slug")).status,
            200,
            `export ${n}`
          )
        }
      })
    )

    if (backend === "postgres") {
      it.effect("the quota is durable: a new process over the same database still refuses the sixth", () =>
        Effect.gen(function* () {
          const key = yield* freshKey()
          for (let n = 1; n <= 5; n++) yield* key.call("/export.json?entity=token&fields=slug")
          // A second service over its own Postgres export log, as another server process or a restart would have.
          const refused = yield* Effect.gen(function* () {
            const fresh = yield* ExportService
            return yield* Effect.flip(
              fresh.export(Caller.apiKey("pro", key.account, key.key_id), {
                entity_type: "token",
                fields: ["slug"],
                limit: 10,
                format: "json"
              })
            )
          }).pipe(
            Effect.provide(
              ExportService.layer.pipe(
                Layer.provide(
                  Layer.unwrap(
                    Effect.map(Effect.serviceOption(PgClient.PgClient), (pg) =>
                      PgExportLog.layer.pipe(
                        Layer.provide(Layer.succeed(PgClient.PgClient, Option.getOrThrow(pg)))
                      )
                    )
                  )
                ),
                Layer.provide(
                  Layer.succeed(IdGenerator, IdGenerator.of({ uuid: Effect.sync(() => crypto.randomUUID()) }))
                )
              )
            )
          )
          assert.strictEqual(refused._tag, "ExportQuotaExceeded")
        })
      )
    }
  })

  describe("spec part 4 compare", () => {
    it.effect("tier: Enterprise; anonymous 401, Free and Pro 403", () =>
      Effect.gen(function* () {
        const q = `/compare?entity=protocol&ids=${slugOf("protocol", "alpha")}&fields=grade`
        assert.strictEqual((yield* get(q)).status, 401)
        assert.strictEqual((yield* get(q, "free")).status, 403)
        assert.strictEqual((yield* get(q, "pro")).status, 403)
        assert.strictEqual((yield* get(q, "enterprise")).status, 200)
      })
    )

    it.effect(
      "spec part 7: entity, ids and fields are all required; each missing one is a 422 naming it",
      () =>
        Effect.gen(function* () {
          const r = yield* get("/compare", "enterprise")
          assert.strictEqual(r.status, 422)
          assert.sameDeepMembers(
            (r.json as Json).detail.map((d: Json) => d.loc),
            [
              ["query", "entity"],
              ["query", "ids"],
              ["query", "fields"]
            ]
          )
        })
    )

    it.effect(
      "ids are ids or slugs separated by commas, 1 to 25; each entity's figures from its latest published scorecard",
      () =>
        Effect.gen(function* () {
          const alpha = slugOf("protocol", "alpha")
          const beta = slugOf("protocol", "beta")
          const r = yield* get(
            `/compare?entity=protocols&ids=${beta},${entityId("protocol", "alpha")}&fields=slug,grade,composite_score,domain_scores,last_rated_at`,
            "enterprise"
          )
          assert.strictEqual(r.status, 200, r.text)
          const items = (r.json as Json).items as ReadonlyArray<Json>
          assert.deepStrictEqual(
            items.map((x) => x.slug),
            [beta, alpha],
            "in the order of ids"
          )
          assert.strictEqual(items[1]!.id, entityId("protocol", "alpha"))
          const card = (yield* latestPublished(alpha))!
          assert.strictEqual(items[1]!.grade, card.grade)
          assert.strictEqual(items[1]!.composite_score, card.composite_score)
          assert.strictEqual(items[1]!.last_rated_at, card.last_rated_at)
          assert.isNull(items[0]!.grade, "unrated: null figures")
          const tooMany = Array.from({ length: 26 }, (_, i) => `p-${i}`).join(",")
          const over = yield* get(`/compare?entity=protocol&ids=${tooMany}&fields=grade`, "enterprise")
          assert.strictEqual(over.status, 422)
          assert.deepStrictEqual((over.json as Json).detail[0].loc, ["query", "ids"])
          const empty = yield* get("/compare?entity=protocol&ids=,,&fields=grade", "enterprise")
          assert.strictEqual(empty.status, 422)
        })
    )

    it.effect("a non-published or unknown entity is a 404 that answers both alike and reveals nothing", () =>
      Effect.gen(function* () {
        const answers: Array<Json> = []
        for (const id of [
          slugOf("protocol", "draft"),
          slugOf("protocol", "private"),
          slugOf("protocol", "retired"),
          "no-such-protocol"
        ]) {
          const r = yield* get(
            `/compare?entity=protocol&ids=${slugOf("protocol", "alpha")},${id}&fields=grade`,
            "enterprise"
          )
          assert.strictEqual(r.status, 404, id)
          assert.deepStrictEqual(r.json, { detail: "not found", identifiers: [id] })
          answers.push(r.json as Json)
        }
        assert.strictEqual(new Set(answers.map((a) => Object.keys(a).join())).size, 1)
      })
    )
  })
}

onEachBackend((it, backend) => exportRoutes(it, backend))

// A store that fails part-way: vaults cannot even be counted; bridges list their first page, then fail.
const failing = new StoreError({ message: "connect ECONNREFUSED 10.9.8.7:5432 (ratings_db)" })
const bridgeBase = Seed.entities.find((e) => e.entity_type === "bridge")!
const manyBridges = Array.from({ length: ExportPageSize + 50 }, (_, i) => ({
  entity_type: "bridge" as const,
  record: { ...bridgeBase.record, id: crypto.randomUUID(), slug: `many-bridge-${String(i).padStart(4, "0")}` }
}))
const FailingPartWay = MemoryFeeds.pipe(
  Layer.provideMerge(
    Layer.mergeAll(
      Layer.effect(
        EntityRepository,
        Effect.map(Effect.service(EntityRepository), (store) =>
          EntityRepository.of({
            ...store,
            countPublished: (type) => (type === "vault" ? Effect.fail(failing) : store.countPublished(type)),
            published: (type, limit, after) =>
              after === undefined ? store.published(type, limit) : Effect.fail(failing)
          })
        )
      ).pipe(Layer.provide(EntityRepositoryMemory.layer([...Seed.entities, ...manyBridges]))),
      ScorecardRepositoryMemory.layer({ scorecards: Seed.scorecards }),
      RubricRepositoryMemory.layer(),
      ApiKeyRepositoryMemory.layer
    )
  )
)

layer(TestServer.layer(FailingPartWay), { excludeTestServices: true })(
  "export when the store fails (spec part 7)",
  (it) => {
    it.effect(
      "a failure before the first row is a 503 that says the service is unavailable, and spends no quota",
      () =>
        Effect.gen(function* () {
          const key = yield* freshKey()
          for (let i = 0; i < 6; i++) {
            const r = yield* key.call("/export.csv?entity=vault&fields=slug")
            assert.strictEqual(r.status, 503)
            assert.notInclude(r.text, "ECONNREFUSED")
          }
          assert.strictEqual((yield* key.call("/export.csv?entity=chain&fields=slug")).status, 200)
        })
    )

    it.effect("a failure mid-stream aborts the response: a cut file never ends like a complete one", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { key } = yield* server.createKey("pro", { account_id: crypto.randomUUID() })
        for (const format of ["csv", "json"]) {
          // The 200 head goes out with the first page, so the failure can only cut the connection:
          // the client sees the request or the body fail (whichever it was reading), never a clean end.
          const outcome = yield* Effect.promise(async () => {
            try {
              const response = await fetch(
                `${server.baseUrl}/api/v1/export.${format}?entity=bridge&fields=slug&limit=5000`,
                { headers: { authorization: `Bearer ${key}` } }
              )
              const text = await response.text()
              return { completed: true, text: `${response.status} ${text.slice(-80)}` }
            } catch (e) {
              return { completed: false, text: String(e) }
            }
          })
          assert.isFalse(outcome.completed, `${format}: the response ended cleanly: ${outcome.text}`)
        }
      })
    )
  }
)
