import { randomUUID } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { IdGenerator } from "@ratings/domain/ports/IdGenerator"
import { IncidentRepository } from "@ratings/domain/ports/IncidentRepository"
import type { StoreError } from "@ratings/domain/ports/StoreError"
import { IncidentService, RatedProtocols } from "@ratings/domain/services/IncidentService"
import WireTimestamps from "../src/migrations/0004_wire_timestamps.ts"
import * as PgIncidentRepository from "../src/PgIncidentRepository.ts"
import { otherProcessClient, sharedDatabase } from "./PostgresTarget.ts"
import {
  ProtocolRating,
  recordOf,
  report,
  served,
  uuid
} from "@ratings/domain/test-support/contract/events-incident-fixtures"
import { incidentRepositoryContract } from "@ratings/domain/test-support/contract/events-incident-repository"
import { incidentServiceContract } from "@ratings/domain/test-support/contract/events-incident-service"
import { TestDatabase } from "./TestDatabase.ts"
import { IdGeneratorMemory } from "@ratings/domain/ports/memory/IdGeneratorMemory"

// ---------------------------------------------------------------------------
// The domain's shared contracts over Postgres (their in-memory run is the
// domain's ports/memory/IncidentRepositoryMemory.test.ts)

interface EntityRow {
  readonly slug: string
  readonly name: string
  readonly entity_type?: string
  readonly status?: string
  readonly scorecard?: "published" | "draft" | null
  readonly is_active?: boolean
  readonly is_private?: boolean
}

/**
 * Writes an entity and a scorecard straight into the ratings tables of
 * migration 0001 (owned by the ratings side); only the columns that are NOT
 * NULL without a default there are set.
 */
const insertEntity = (e: EntityRow) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const id = randomUUID()
    const type = e.entity_type ?? "protocol"
    yield* sql`
      INSERT INTO entities (id, entity_type, slug, name, status, is_active, is_private, created_at, updated_at, name_lower)
      VALUES (${id}, ${type}, ${e.slug}, ${e.name}, ${e.status ?? "published"}, ${e.is_active ?? true},
              ${e.is_private ?? false}, now(), now(), ${e.name.toLowerCase()})
    `
    if (e.scorecard !== null) {
      yield* sql`
        INSERT INTO scorecards (id, entity_type, entity_id, scorecard_version, status, has_unrated_dependencies, domain_weights)
        VALUES (${randomUUID()}, ${type}, ${id}, 1, ${e.scorecard ?? "published"}, false, '{}'::jsonb)
      `
    }
  })

const pgRating = Layer.effect(
  ProtocolRating,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return ProtocolRating.of({
      rate: (protocols) =>
        Effect.forEach(protocols, (p) => insertEntity(p), { discard: true }).pipe(
          Effect.provideService(SqlClient.SqlClient, sql)
        )
    })
  })
)

const randomIds = Layer.succeed(IdGenerator, IdGenerator.of({ uuid: Effect.sync(() => randomUUID()) }))

/** One server process's incident stack on the SqlClient it is given. */
const pgIncidents = Layer.mergeAll(PgIncidentRepository.layer, PgIncidentRepository.layerRatedProtocols)

/** Emptied before each contract test; the ratings tables too, since the service tests rate protocols. */
const database = sharedDatabase([
  "incidents",
  "incident_nonces",
  "incident_sources",
  "entities",
  "scorecards"
])

incidentRepositoryContract("PgIncidentRepository", () =>
  Layer.mergeAll(PgIncidentRepository.layer, pgRating).pipe(Layer.provide(database))
)

incidentServiceContract("PgIncidentRepository", () =>
  IncidentService.layer.pipe(
    Layer.provideMerge(Layer.mergeAll(pgIncidents, pgRating, IdGeneratorMemory.layer)),
    Layer.provide(database)
  )
)

// ---------------------------------------------------------------------------
// Postgres only

const count = (query: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql.unsafe<{ readonly n: number }>(query)
    return row!.n
  })

const ingest = (input: unknown) =>
  Effect.gen(function* () {
    return yield* (yield* IncidentService).ingest(input)
  })

const truncate = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`TRUNCATE incidents CASCADE`
})

/** Ten hacks, four independent sources each, plus a replay of one nonce per hack. */
const stormOfReports = (round: number) =>
  Array.from({ length: 10 }, (_, hack) => {
    const name = `Protocol ${round}-${hack}`
    const reports = ["blockaid", "peckshield", "certik", "hypernative"].map((handle, i) =>
      report({ protocol_name: name, handle, claimed_tier: i < 2 ? "corroborated" : "confirmed" })
    )
    return [...reports, { ...reports[0]!, source: { handle: "someone-else" } }]
  })

describe("PgIncidentRepository", () => {
  it.layer(TestDatabase)((it) => {
    it.effect(
      "ingest in two server processes at once makes one incident per hack and applies each nonce once",
      () =>
        Effect.gen(function* () {
          yield* truncate
          const stack = IncidentService.layer.pipe(Layer.provide(Layer.mergeAll(pgIncidents, randomIds)))
          const a = yield* Layer.build(stack)
          const b = yield* Layer.build(stack.pipe(Layer.provide(otherProcessClient)))
          for (let round = 0; round < 3; round++) {
            const hacks = stormOfReports(round)
            // Every report goes to both processes, interleaved; each hack's reports race.
            const jobs = hacks.flatMap((reports) =>
              reports.flatMap((r) => [ingest(r).pipe(Effect.provide(a)), ingest(r).pipe(Effect.provide(b))])
            )
            const results = yield* Effect.all(jobs, { concurrency: "unbounded" })
            const created = results.filter((r) => r.outcome === "created")
            assert.strictEqual(created.length, hacks.length, "one incident created per hack")
            assert.strictEqual(
              results.filter((r) => r.outcome === "duplicate").length,
              results.length / 2 + hacks.length
            )
          }
          assert.strictEqual(yield* count("SELECT count(*)::int AS n FROM incidents"), 30)
          assert.strictEqual(yield* count("SELECT count(*)::int AS n FROM incident_nonces"), 30 * 4)
          assert.strictEqual(yield* count("SELECT count(*)::int AS n FROM incident_sources"), 30 * 4)
          assert.strictEqual(
            yield* count("SELECT count(*)::int AS n FROM incidents WHERE status = 'confirmed'"),
            30
          )
        })
    )

    it.effect(
      "without the ingest transaction, racing ingests fail with a conflict rather than duplicate a hack",
      () =>
        Effect.gen(function* () {
          yield* truncate
          const stack = IncidentService.layer.pipe(Layer.provide(Layer.mergeAll(pgIncidents, randomIds)))
          const a = yield* Layer.build(stack)
          const b = yield* Layer.build(stack.pipe(Layer.provide(otherProcessClient)))
          const hacks = stormOfReports(9)
          const exits = yield* Effect.all(
            hacks.flatMap((reports) =>
              reports.map((r, i) => Effect.exit(ingest(r).pipe(Effect.provide(i % 2 === 0 ? a : b))))
            ),
            { concurrency: "unbounded" }
          )
          for (const exit of exits) {
            if (Exit.isFailure(exit)) {
              const error = Cause.findErrorOption(exit.cause)
              assert.isTrue(Option.isSome(error), "a failure is a typed error, not a defect")
              const e = Option.getOrThrow(error)
              assert.isTrue(e._tag === "StoreError" && PgIncidentRepository.isIncidentConflict(e), String(e))
            }
          }
          assert.isAtMost(yield* count("SELECT count(*)::int AS n FROM incidents"), hacks.length)
          assert.strictEqual(
            yield* count("SELECT count(DISTINCT aggregation_key)::int AS n FROM incidents"),
            yield* count("SELECT count(*)::int AS n FROM incidents")
          )
        })
    )

    it.effect(
      "migration 0004: rows stored with another spelling of their date-times are rewritten to the wire form (+00:00)",
      () =>
        Effect.gen(function* () {
          yield* truncate
          const sql = yield* SqlClient.SqlClient
          const repo = yield* IncidentRepository
          const stored = recordOf(
            served(1, { resolved_at: "2026-08-03T00:00:00+00:00", resolution: "patched" })
          )
          yield* repo.upsert(stored)
          // As rows were written before every date-time was stored in the wire form: the text as the source spelt it.
          yield* sql`UPDATE incidents SET
            detected_at = '2026-08-01T00:00:00.000Z', detected_at_text = '2026-08-01T00:00:00.000Z',
            first_seen_at = '2026-07-31T20:00:00-04:00', first_seen_at_text = '2026-07-31T20:00:00-04:00',
            resolved_at = '2026-08-03T05:30:00.250+05:30', resolved_at_text = '2026-08-03T05:30:00.250+05:30'`
          yield* WireTimestamps
          const record = Option.getOrThrow(yield* repo.findByNonce(stored.nonces[0]!))
          const page = yield* repo.feed({ min_status: "rumored", limit: 10, offset: 0 })
          for (const item of [record, page.items[0]!]) {
            assert.strictEqual(item.detected_at, "2026-08-01T00:00:00+00:00")
            assert.strictEqual(item.first_seen_at, "2026-08-01T00:00:00+00:00")
            assert.strictEqual(item.resolved_at, "2026-08-03T00:00:00.250000+00:00")
          }
        }).pipe(Effect.provide(PgIncidentRepository.layer))
    )

    it.effect("a write decided on a stale read is refused as a conflict", () =>
      Effect.gen(function* () {
        yield* truncate
        const repo = yield* IncidentRepository
        const stored = recordOf(served(1))
        yield* repo.upsert(stored)
        const conflict = (effect: Effect.Effect<void, StoreError>) =>
          Effect.map(Effect.flip(effect), PgIncidentRepository.isIncidentConflict)
        // Another process appended a nonce in between: this update does not extend what is stored.
        assert.isTrue(yield* conflict(repo.upsert({ ...stored, nonces: ["other-nonce"] })))
        // Another process created this hack's incident in between.
        assert.isTrue(yield* conflict(repo.upsert({ ...stored, incident_id: uuid(2), nonces: ["n-2"] })))
        // The nonce was applied to another incident in between.
        const elsewhere = recordOf(served(3, { protocol_name: "Curve" }))
        assert.isTrue(yield* conflict(repo.upsert({ ...elsewhere, nonces: [stored.nonces[0]!] })))
        assert.deepStrictEqual(yield* repo.findByNonce(stored.nonces[0]!), Option.some(stored))
        assert.strictEqual(yield* count("SELECT count(*)::int AS n FROM incidents"), 1)
      }).pipe(Effect.provide(PgIncidentRepository.layer))
    )

    it.effect("rated protocols are the published, public, active protocols with a published scorecard", () =>
      Effect.gen(function* () {
        for (const e of [
          { slug: "aave-v3", name: "Aave V3" },
          { slug: "curve", name: "Curve", status: "approved" },
          { slug: "euler", name: "Euler", scorecard: "draft" as const },
          { slug: "morpho", name: "Morpho", scorecard: null },
          { slug: "hidden", name: "Hidden", is_private: true },
          { slug: "retired", name: "Retired", is_active: false },
          { slug: "ethereum", name: "Ethereum", entity_type: "chain" },
          { slug: "balancer", name: "Balancer" }
        ])
          yield* insertEntity(e)
        const rated = yield* (yield* RatedProtocols).published
        assert.deepStrictEqual(rated, [
          { slug: "aave-v3", name: "Aave V3" },
          { slug: "balancer", name: "Balancer" }
        ])
      }).pipe(Effect.provide(PgIncidentRepository.layerRatedProtocols))
    )

    it.effect(
      "rows are decoded with the domain's schemas: a stored incident row that no longer fits is a StoreError naming the read",
      () =>
        Effect.gen(function* () {
          yield* truncate
          const sql = yield* SqlClient.SqlClient
          const repo = yield* IncidentRepository
          const item = served(1)
          const record = recordOf(item)
          yield* repo.upsert(record)
          yield* sql`UPDATE incidents SET first_seen_at_text = 'last tuesday' WHERE incident_id = ${item.incident_id}`
          const reads: ReadonlyArray<readonly [string, Effect.Effect<unknown, StoreError>]> = [
            ["findByNonce", repo.findByNonce(record.nonces[0]!)],
            ["findFor", repo.findFor(report({ first_seen_at: item.first_seen_at }))],
            ["feed", repo.feed({ min_status: "rumored", limit: 10, offset: 0 })]
          ]
          for (const [what, read] of reads) {
            const error = yield* Effect.flip(read)
            assert.strictEqual(error._tag, "StoreError", what)
            assert.include(error.message, `incidents, ${what}: a stored row does not decode`, what)
          }
          yield* sql`UPDATE incidents SET first_seen_at_text = ${item.first_seen_at} WHERE incident_id = ${item.incident_id}`
          yield* sql`UPDATE incident_sources SET url = NULL WHERE incident_id = ${item.incident_id}`
          assert.deepStrictEqual(yield* repo.findByNonce(record.nonces[0]!), Option.some(record))
        }).pipe(Effect.provide(PgIncidentRepository.layer))
    )

    it.effect("the feed query reads no nonce and no victim address column", () =>
      Effect.gen(function* () {
        yield* truncate
        const sql = yield* SqlClient.SqlClient
        const repo = yield* IncidentRepository
        yield* repo.upsert(recordOf(served(1)))
        const [{ db }] = (yield* sql<{ readonly db: string }>`SELECT current_database() AS db`) as [
          { db: string }
        ]
        const role = `feed_reader_${db}`.slice(0, 60)
        yield* Effect.acquireRelease(
          Effect.gen(function* () {
            yield* sql.unsafe(`CREATE ROLE "${role}" NOLOGIN`)
            yield* sql.unsafe(`
              GRANT SELECT (incident_id, protocol_name, slug, matched_protocol, status, exploit_class,
                loss_estimate_usd, chain, confidence_bps, servable, detected_at, detected_at_text,
                first_seen_at_text, resolved_at_text, resolution) ON incidents TO "${role}"`)
            yield* sql.unsafe(`GRANT SELECT (incident_id, position, handle) ON incident_sources TO "${role}"`)
          }),
          () =>
            sql
              .unsafe(`DROP OWNED BY "${role}"`)
              .pipe(Effect.andThen(sql.unsafe(`DROP ROLE "${role}"`)), Effect.ignore)
        )
        const asReader = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
          sql.withTransaction(Effect.andThen(sql.unsafe(`SET LOCAL ROLE "${role}"`), effect))
        const page = yield* asReader(
          repo.feed({ min_status: "rumored", limit: 10, offset: 0, slug: "aave-v3" })
        )
        assert.strictEqual(page.total, 1)
        // The reader really cannot see them, so the feed above did not touch them.
        assert.isTrue(
          Exit.isFailure(yield* Effect.exit(asReader(sql`SELECT victim_addresses FROM incidents`)))
        )
        assert.isTrue(Exit.isFailure(yield* Effect.exit(asReader(sql`SELECT nonce FROM incident_nonces`))))
      }).pipe(Effect.provide(PgIncidentRepository.layer))
    )
  })
})
