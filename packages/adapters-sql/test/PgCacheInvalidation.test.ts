import { assert, describe, it } from "@effect/vitest"
import { PgClient } from "@effect/sql-pg"
import { ChangeTopics } from "@ratings/domain/model/ChangeTopic"
import { EntityTypes } from "@ratings/domain/model/EntityType"
import { IncidentRepository } from "@ratings/domain/ports/IncidentRepository"
import { QuantumSnapshotStore } from "@ratings/domain/ports/QuantumSnapshotStore"
import { recordOf, served } from "@ratings/domain/test-support/contract/events-incident-fixtures"
import { snapshotAt } from "@ratings/domain/test-support/contract/events-quantum-snapshot-store"
import { EntityRepository } from "@ratings/domain/ports/EntityRepository"
import { RubricRepository } from "@ratings/domain/ports/RubricRepository"
import { ScorecardRepository } from "@ratings/domain/ports/ScorecardRepository"
import { Context, Effect, Exit, Layer, Option, Result, Stream } from "effect"
import * as PgApiKeyRepository from "../src/PgApiKeyRepository.ts"
import * as PgCacheInvalidation from "../src/PgCacheInvalidation.ts"
import { CacheInvalidation } from "../src/PgCacheInvalidation.ts"
import * as PgEntityRepository from "../src/PgEntityRepository.ts"
import * as PgIncidentRepository from "../src/PgIncidentRepository.ts"
import * as PgQuantumSnapshotStore from "../src/PgQuantumSnapshotStore.ts"
import * as PgRubricRepository from "../src/PgRubricRepository.ts"
import * as PgScorecardRepository from "../src/PgScorecardRepository.ts"
import { entity, historyOf, scorecard, T2 } from "@ratings/domain/test-support/contract/ratings-fixtures"
import { question } from "@ratings/domain/test-support/contract/ratings-rubric-repository"
import { PgClientLayer } from "../src/PgDatabase.ts"
import { TestDatabase, testDatabaseUrl } from "./TestDatabase.ts"

const ports = Layer.mergeAll(PgEntityRepository.layer, PgScorecardRepository.layer, PgCacheInvalidation.layer)

/** The next `n` changes a listener receives. */
const nextChanges = (n: number) =>
  Effect.gen(function* () {
    const changes = yield* (yield* CacheInvalidation).subscribe
    return (take: Effect.Effect<unknown, unknown>) =>
      Effect.gen(function* () {
        yield* take
        return yield* Stream.runCollect(Stream.take(changes, n))
      })
  })

const publishRecord = (e: ReturnType<typeof entity>, draft: ReturnType<typeof scorecard>) => {
  const published = { ...draft, status: "published" as const, last_rated_at: T2, scorecard_published_at: T2 }
  return {
    entity_type: e.entity_type,
    entity_id: e.record.id,
    scorecard: published,
    history: historyOf(published, "x")
  }
}

describe("PgCacheInvalidation", () => {
  it("payloads are '<entity_type>:<entity_id>'; anything else is not a change", () => {
    const change = { entity_type: "vault" as const, entity_id: "00000000-0000-4000-8000-000000000001" }
    assert.strictEqual(PgCacheInvalidation.payloadOf(change), "vault:00000000-0000-4000-8000-000000000001")
    assert.deepStrictEqual(
      PgCacheInvalidation.parsePayload(PgCacheInvalidation.payloadOf(change)),
      Result.succeed(change)
    )
    // The feeds' changes (incidents, quantum readiness) are changes too.
    assert.deepStrictEqual(
      PgCacheInvalidation.parsePayload("incident:00000000-0000-4000-8000-000000000002"),
      Result.succeed({ entity_type: "incident", entity_id: "00000000-0000-4000-8000-000000000002" })
    )
    assert.deepStrictEqual(
      PgCacheInvalidation.parsePayload("quantum:*"),
      Result.succeed({ entity_type: "quantum", entity_id: "*" })
    )
    for (const bad of ["", "vault", "vault:", ":id", "planet:x", "incidents:x"]) {
      assert.isTrue(Result.isFailure(PgCacheInvalidation.parsePayload(bad)), bad)
    }
  })

  it.layer(TestDatabase)((it) => {
    it.effect("a listener on another connection receives the change once a publish commits", () =>
      Effect.gen(function* () {
        const entities = yield* EntityRepository
        const scorecards = yield* ScorecardRepository
        const e = entity("protocol", "notified")
        yield* entities.upsert([e])
        const draft = scorecard(e, 1, "draft")
        yield* scorecards.saveDraft(draft)
        const listen = yield* nextChanges(1)
        const received = yield* listen(scorecards.publish(publishRecord(e, draft)))
        assert.deepStrictEqual(received, [{ entity_type: "protocol", entity_id: e.record.id }])
      }).pipe(Effect.provide(ports))
    )

    it.effect("a publish that rolls back notifies nobody", () =>
      Effect.gen(function* () {
        const entities = yield* EntityRepository
        const scorecards = yield* ScorecardRepository
        const sql = yield* PgClient.PgClient
        const rolledBack = entity("protocol", "rolled-back")
        const committed = entity("protocol", "committed")
        yield* entities.upsert([rolledBack, committed])
        const draftA = scorecard(rolledBack, 1, "draft")
        const draftB = scorecard(committed, 1, "draft")
        yield* scorecards.saveDraft(draftA)
        yield* scorecards.saveDraft(draftB)
        const listen = yield* nextChanges(1)
        // Notifications arrive in commit order: if the rolled-back one were sent, it would come first.
        const received = yield* listen(
          Effect.gen(function* () {
            const exit = yield* Effect.exit(
              sql.withTransaction(
                Effect.andThen(
                  scorecards.publish(publishRecord(rolledBack, draftA)),
                  Effect.fail("roll back")
                )
              )
            )
            assert.isTrue(Exit.isFailure(exit))
            yield* scorecards.publish(publishRecord(committed, draftB))
          })
        )
        assert.deepStrictEqual(received, [{ entity_type: "protocol", entity_id: committed.record.id }])
      }).pipe(Effect.provide(ports))
    )

    it.effect("publish(change) reaches every subscriber", () =>
      Effect.gen(function* () {
        const invalidation = yield* CacheInvalidation
        const first = yield* nextChanges(1)
        const second = yield* invalidation.subscribe
        const change = { entity_type: "chain" as const, entity_id: "00000000-0000-4000-8000-0000000000aa" }
        assert.deepStrictEqual(yield* first(invalidation.publish(change)), [change])
        assert.deepStrictEqual(yield* Stream.runCollect(Stream.take(second, 1)), [change])
      }).pipe(Effect.provide(ports))
    )

    it.effect("an entity upsert announces each changed entity; an unchanged one announces nothing", () =>
      Effect.gen(function* () {
        const entities = yield* EntityRepository
        const invalidation = yield* CacheInvalidation
        const same = entity("oracle", "unchanged-oracle")
        yield* entities.upsert([same])
        const renamed = entity("oracle", "to-rename")
        const listen = yield* nextChanges(2)
        const marker = { entity_type: "oracle" as const, entity_id: "marker" }
        const received = yield* listen(
          Effect.gen(function* () {
            yield* entities.upsert([same, renamed])
            yield* invalidation.publish(marker)
          })
        )
        assert.deepStrictEqual(received, [{ entity_type: "oracle", entity_id: renamed.record.id }, marker])
      }).pipe(Effect.provide(ports))
    )

    it.effect("a large upsert announces the whole type once instead of each entity", () =>
      Effect.gen(function* () {
        const entities = yield* EntityRepository
        const listen = yield* nextChanges(1)
        const many = Array.from({ length: 150 }, (_, i) => entity("token", `bulk-${i}`))
        const received = yield* listen(entities.upsert(many))
        assert.deepStrictEqual(received, [{ entity_type: "token", entity_id: PgCacheInvalidation.AllOfType }])
      }).pipe(Effect.provide(ports))
    )
  })
})

const versionsOf = Effect.flatMap(PgClient.PgClient, PgCacheInvalidation.currentVersions)

const plus = (version: string | undefined, n: number) => String(Number(version) + n)

describe("PgCacheInvalidation versions (read before serving a cached response)", () => {
  it.layer(TestDatabase)((it) => {
    it.effect(
      "a key revocation bumps the keys' version by one, no other, in its own statement; revoking a revoked or unknown key bumps nothing",
      () =>
        Effect.gen(function* () {
          const keys = yield* PgApiKeyRepository.make
          const before = yield* versionsOf
          const created = yield* keys.create({
            id: "key-versioned",
            name: "versioned",
            tier: "pro",
            account_id: "acct-versioned",
            prefix: "rk_versi",
            hash: "a".repeat(64),
            created_at: "2026-11-26T00:00:00.000Z"
          })
          assert.deepStrictEqual(yield* versionsOf, before, "a creation bumps nothing")
          assert.isTrue(yield* keys.revoke(created.id, "2026-11-26T01:00:00.000Z"))
          const after = yield* versionsOf
          assert.deepStrictEqual(after, { ...before, api_keys: plus(before.api_keys, 1) })
          assert.isFalse(yield* keys.revoke(created.id, "2026-11-26T02:00:00.000Z"))
          assert.isFalse(yield* keys.revoke("no-such-key", "2026-11-26T02:00:00.000Z"))
          assert.deepStrictEqual(yield* versionsOf, after)
        })
    )

    it.effect(
      "every type starts with a version, and a committed write bumps its type's version by one, no other",
      () =>
        Effect.gen(function* () {
          const entities = yield* EntityRepository
          const scorecards = yield* ScorecardRepository
          const initial = yield* versionsOf
          assert.deepStrictEqual(Object.keys(initial).sort(), [...ChangeTopics, "api_keys"].sort())
          const e = entity("protocol", "versioned")
          yield* entities.upsert([e])
          const draft = scorecard(e, 1, "draft")
          yield* scorecards.saveDraft(draft)
          const before = yield* versionsOf
          assert.strictEqual(before.protocol, plus(initial.protocol, 1), "the entity upsert")
          assert.deepStrictEqual(before, { ...initial, protocol: before.protocol }, "a draft bumps nothing")
          yield* scorecards.publish(publishRecord(e, draft))
          const after = yield* versionsOf
          assert.deepStrictEqual(after, { ...before, protocol: plus(before.protocol, 1) })
          // An upsert that changes nothing announces nothing and bumps nothing.
          yield* entities.upsert([e])
          assert.deepStrictEqual(yield* versionsOf, after)
          // One write of two types bumps each once (neither a chain nor an organisation: see below).
          yield* entities.upsert([
            entity("oracle", "two-types-oracle"),
            entity("token", "two-types-token"),
            entity("token", "t2")
          ])
          assert.deepStrictEqual(yield* versionsOf, {
            ...after,
            oracle: plus(after.oracle, 1),
            token: plus(after.token, 1)
          })
        }).pipe(Effect.provide(ports))
    )

    it.effect(
      "an incident write bumps the incidents' version, a quantum snapshot or refresh outcome the quantum version, each by one and no other, at its commit (and announces it)",
      () =>
        Effect.gen(function* () {
          const incidents = yield* IncidentRepository
          const quantum = yield* QuantumSnapshotStore
          const start = yield* versionsOf
          const record = recordOf(served(7101))
          const announced = yield* nextChanges(1)
          const [change] = yield* announced(incidents.upsert(record))
          assert.deepStrictEqual(change, { entity_type: "incident", entity_id: record.incident_id })
          const afterIncident = yield* versionsOf
          assert.deepStrictEqual(afterIncident, { ...start, incident: plus(start.incident, 1) })
          yield* quantum.save(snapshotAt(7))
          const afterSnapshot = yield* versionsOf
          assert.deepStrictEqual(afterSnapshot, { ...afterIncident, quantum: plus(afterIncident.quantum, 1) })
          yield* quantum.recordOutcome({ at: "2026-08-02T00:00:00+00:00", ok: false, error: "HTTP 500" })
          assert.deepStrictEqual(yield* versionsOf, {
            ...afterSnapshot,
            quantum: plus(afterSnapshot.quantum, 1)
          })
        }).pipe(
          Effect.provide(
            Layer.mergeAll(
              PgIncidentRepository.layer,
              PgQuantumSnapshotStore.layer,
              PgCacheInvalidation.layer
            )
          )
        )
    )

    it.effect(
      "a change of a chain bumps every type (records leave out hidden chains' briefs), one of an organisation bridges (validator_set_owner) and vaults (curator) too, a status change as an upsert",
      () =>
        Effect.gen(function* () {
          const entities = yield* EntityRepository
          const chain = entity("chain", "dependents-chain", { status: "scoring" })
          const org = entity("organisation", "dependents-org")
          const start = yield* versionsOf
          yield* entities.upsert([chain])
          const afterChain = yield* versionsOf
          for (const t of EntityTypes) assert.strictEqual(afterChain[t], plus(start[t], 1), t)
          yield* entities.setStatus("chain", chain.record.id, "published", T2)
          const afterStatus = yield* versionsOf
          for (const t of EntityTypes) assert.strictEqual(afterStatus[t], plus(afterChain[t], 1), t)
          yield* entities.upsert([org])
          assert.deepStrictEqual(yield* versionsOf, {
            ...afterStatus,
            organisation: plus(afterStatus.organisation, 1),
            bridge: plus(afterStatus.bridge, 1),
            vault: plus(afterStatus.vault, 1)
          })
        }).pipe(Effect.provide(ports))
    )

    it.effect(
      "a change of whether the public can read an entity (status, is_private, is_active) or of its slug bumps every type (drag hints name it); any other change of it only its type",
      () =>
        Effect.gen(function* () {
          const entities = yield* EntityRepository
          const e = entity("oracle", "shown-oracle")
          yield* entities.upsert([e])
          let record = e.record as unknown as Record<string, unknown>
          let last = yield* versionsOf
          const bumped = (all: boolean, what: string) =>
            Effect.gen(function* () {
              const now = yield* versionsOf
              for (const t of EntityTypes)
                assert.strictEqual(now[t], plus(last[t], all || t === "oracle" ? 1 : 0), `${what}: ${t}`)
              last = now
            })
          const write = (over: Record<string, unknown>) => {
            record = { ...record, ...over }
            return entities.upsert([{ ...e, record: record as never }])
          }
          yield* write({ name: "Renamed" })
          yield* bumped(false, "a new name")
          for (const over of [
            { is_private: true },
            { is_private: false },
            { is_active: false },
            { is_active: true },
            { status: "draft" },
            { status: "published" },
            { slug: "shown-oracle-2" }
          ]) {
            yield* write(over)
            yield* bumped(true, JSON.stringify(over))
          }
          yield* write({ is_private: true })
          yield* bumped(true, "private")
          yield* write({ is_active: false })
          yield* bumped(false, "inactive while private: the public could not read it before either")
          yield* write({ is_private: false, is_active: true })
          yield* bumped(true, "readable again")
          yield* entities.setStatus("oracle", e.record.id, "draft", T2)
          yield* bumped(true, "ratings status draft")
          yield* entities.setStatus("oracle", e.record.id, "scoring", T2)
          yield* bumped(false, "ratings status scoring, from draft")
          yield* entities.setStatus("oracle", e.record.id, "published", T2)
          yield* bumped(true, "ratings status published")
          yield* entities.upsert([entity("oracle", "new-draft-oracle", { status: "draft" })])
          yield* bumped(true, "a new hidden entity (a concurrent write may have inserted it readable)")
        }).pipe(Effect.provide(ports))
    )

    it.effect(
      "a rubric replacement and a batch of publications bump their types; an unchanged rubric does not",
      () =>
        Effect.gen(function* () {
          const entities = yield* EntityRepository
          const scorecards = yield* ScorecardRepository
          const rubric = yield* RubricRepository
          const e = entity("bridge", "batch-published")
          const f = entity("bridge", "batch-published-too")
          yield* entities.upsert([e, f])
          const drafts = [scorecard(e, 1, "draft"), scorecard(f, 1, "draft")]
          yield* scorecards.saveDrafts(drafts)
          const before = yield* versionsOf
          yield* scorecards.publishMany([publishRecord(e, drafts[0]!), publishRecord(f, drafts[1]!)])
          const published = yield* versionsOf
          assert.deepStrictEqual(
            published,
            { ...before, bridge: plus(before.bridge, 1) },
            "one bump per transaction"
          )
          const catalogue = [question("oracle", "O-1", 0)]
          yield* rubric.replace("oracle", catalogue)
          const replaced = yield* versionsOf
          assert.deepStrictEqual(replaced, { ...published, oracle: plus(published.oracle, 1) })
          yield* rubric.replace("oracle", catalogue)
          assert.deepStrictEqual(yield* versionsOf, replaced)
        }).pipe(Effect.provide(Layer.merge(ports, PgRubricRepository.layer)))
    )

    it.effect("a write that rolls back bumps no version", () =>
      Effect.gen(function* () {
        const entities = yield* EntityRepository
        const scorecards = yield* ScorecardRepository
        const sql = yield* PgClient.PgClient
        const e = entity("protocol", "never-bumped")
        yield* entities.upsert([e])
        const draft = scorecard(e, 1, "draft")
        yield* scorecards.saveDraft(draft)
        const before = yield* versionsOf
        const exit = yield* Effect.exit(
          sql.withTransaction(
            Effect.andThen(scorecards.publish(publishRecord(e, draft)), Effect.fail("roll back"))
          )
        )
        assert.isTrue(Exit.isFailure(exit))
        assert.deepStrictEqual(yield* versionsOf, before)
        const stored = yield* scorecards.latest("protocol", e.record.id, "published")
        assert.isTrue(Option.isNone(stored), "and the write itself is gone")
      }).pipe(Effect.provide(ports))
    )

    it.effect(
      "the bump is in the write's transaction: other connections read the old version with the old data until it commits, then the new with the new",
      () =>
        Effect.gen(function* () {
          const entities = yield* EntityRepository
          const scorecards = yield* ScorecardRepository
          const sql = yield* PgClient.PgClient
          const other = Context.get(
            yield* Layer.build(PgClientLayer({ url: yield* testDatabaseUrl, maxConnections: 1 })),
            PgClient.PgClient
          )
          const e = entity("protocol", "in-transaction")
          yield* entities.upsert([e])
          const draft = scorecard(e, 1, "draft")
          yield* scorecards.saveDraft(draft)
          const statusSeenByOther = Effect.map(
            other<{ status: string }>`SELECT status FROM scorecards WHERE id = ${draft.id}::uuid`,
            (rows) => rows[0]?.status
          )
          const before = yield* PgCacheInvalidation.currentVersions(other)
          yield* sql.withTransaction(
            Effect.gen(function* () {
              yield* scorecards.publish(publishRecord(e, draft))
              assert.deepStrictEqual(yield* PgCacheInvalidation.currentVersions(other), before)
              assert.strictEqual(yield* statusSeenByOther, "draft")
            })
          )
          assert.strictEqual(
            (yield* PgCacheInvalidation.currentVersions(other)).protocol,
            plus(before.protocol, 1)
          )
          assert.strictEqual(yield* statusSeenByOther, "published")
        }).pipe(Effect.provide(ports))
    )

    it.effect("concurrent writers of one type never lose a bump", () =>
      Effect.gen(function* () {
        const invalidation = yield* CacheInvalidation
        const before = yield* versionsOf
        yield* Effect.forEach(
          Array.from({ length: 20 }, (_, i) => i),
          (i) =>
            invalidation.publish({
              entity_type: "vault",
              entity_id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`
            }),
          { concurrency: "unbounded" }
        )
        assert.strictEqual((yield* versionsOf).vault, plus(before.vault, 20))
      }).pipe(Effect.provide(ports))
    )
  })
})
