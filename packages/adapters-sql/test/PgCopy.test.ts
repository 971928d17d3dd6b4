/**
 * saveDrafts copies the answers of new scorecards (`COPY ... FROM STDIN` in
 * binary, PgCopy.ts) on the transaction's own connection: the rows are the
 * very rows the statements write (awkward values included), the copy is part
 * of the transaction (undone with it, a failure leaves the session usable),
 * and it is what the installed driver gets (a driver whose internals changed
 * would silently fall back to the statements: this fails first).
 */
import { assert, describe, it } from "@effect/vitest"
import { PgClient } from "@effect/sql-pg"
import type { Answer } from "@ratings/domain/model/Answer"
import { EntityRepository } from "@ratings/domain/ports/EntityRepository"
import { ScorecardRepository, type StoredScorecard } from "@ratings/domain/ports/ScorecardRepository"
import {
  answer,
  entity,
  scorecard,
  tableBacked
} from "@ratings/domain/test-support/contract/ratings-fixtures"
import { Deferred, Effect, Exit, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import * as PgEntityRepository from "../src/PgEntityRepository.ts"
import { copyIn, copySession, InterruptWaitMs } from "../src/PgCopy.ts"
import * as PgScorecardRepository from "../src/PgScorecardRepository.ts"
import { CopyWriter } from "../src/scorecards/CopyFrames.ts"
import { bulk } from "../src/scorecards/ScorecardBulk.ts"
import { statementsOnly } from "./StatementsOnly.ts"
import { answerBytes } from "./AnswerBytes.ts"
import { TestDatabase } from "./TestDatabase.ts"

const postgres = Layer.merge(PgEntityRepository.layer, PgScorecardRepository.layer)

const Largest = Number.MAX_VALUE
const Smallest = Number.MIN_VALUE

/** Answers with NULLs, empty, non-ASCII and long texts, and figures at the edges of float8. */
const awkward = (): Array<Answer> => [
  answer("Q-null", "security", null, { domain: null, confidence: null, response: null, rationale: null }),
  answer("Q-empty", "", 0, { response: "", rationale: "", confidence: "low" }),
  answer("Q-ü€𝄞", "gövernance ✓", -0, { max_score: Smallest, weight: Smallest, confidence: "medium" }),
  answer("Q-max", "security", Largest, { max_score: Largest, weight: Largest }),
  answer("Q-frac", "security", 0.1 + 0.2, { max_score: 1 / 3 + 1, weight: 1 / 3, response: "a".repeat(48) }),
  answer("Q-48", "security", Smallest, { response: `${"a".repeat(47)}é`, rationale: "a".repeat(49) }),
  answer("Q-ctrl", "security", 2, {
    response: 'tab\t newline\n quote" backslash\\ comma, brace{} \u0001 😀',
    rationale: "lone \ud800 surrogate and \udfff"
  }),
  // Longer than one CopyData message.
  answer("Q-long", "security", 1, { rationale: "é".repeat(200_000), response: "x".repeat(70_000) }),
  answer("Q-upper", "security", 1, { id: "0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D" })
]

/** A draft whose answers are held by an import's answer table, as the importer's are. */

/** Every message the transaction's connection writes, by type byte, while `effect` runs. */
const messagesWritten = <A, E, R>(sql: PgClient.PgClient, effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const session = yield* copySession(sql)
    assert.isDefined(session, "the transaction's session can copy")
    const socket = session!.session.socket
    const types: Array<string> = []
    const write = socket.write
    const untyped = write as (...args: Array<unknown>) => boolean
    socket.write = ((...args: Array<unknown>) => {
      types.push(String.fromCharCode((args[0] as Uint8Array)[0]!))
      return untyped.apply(socket, args)
    }) as typeof socket.write
    yield* Effect.ensuring(
      effect,
      Effect.sync(() => {
        socket.write = write
      })
    )
    return types
  })

/** Fails with "cut off" after `millis` of real time. */
const cutOff = (millis: number) =>
  Effect.callback<never, string>((resume) => {
    const timer = setTimeout(() => resume(Effect.fail("cut off")), millis)
    return Effect.sync(() => clearTimeout(timer))
  })

describe("saveDrafts copying new scorecards' answers", () => {
  it.layer(TestDatabase)((it) => {
    it.effect("writes the bytes the statements write, answers in a table or not", () =>
      Effect.gen(function* () {
        const sql = yield* PgClient.PgClient
        const repo = yield* ScorecardRepository
        const names = ["copied", "copied-table", "copied-words", "stated", "stated-lower"]
        const es = names.map((s) => entity("protocol", `copy-${s}`))
        yield* (yield* EntityRepository).upsert(es)
        const answers = awkward()
        // Without the upper-case id, the table gives every id as words.
        const lower = answers.filter((a) => a.id === a.id.toLowerCase())
        const sets = [answers, answers, lower, answers, lower]
        const [copied, fromTable, fromWords, stated, statedLower] = es.map((e, i) =>
          scorecard(e, 1, "draft", { answers: sets[i]! })
        ) as [StoredScorecard, StoredScorecard, StoredScorecard, StoredScorecard, StoredScorecard]
        // `stated*` are stored first without answers: saved again, their answers go by the statements.
        yield* repo.saveDrafts([stated, statedLower].map((s) => ({ ...s, answers: [] })))
        const types = yield* sql.withTransaction(
          messagesWritten(
            sql,
            repo.saveDrafts([copied, tableBacked(fromTable), tableBacked(fromWords), stated, statedLower])
          )
        )
        assert.include(types, "d", "CopyData was sent")
        const expected = yield* answerBytes(sql, stated.id)
        assert.strictEqual(expected.length, answers.length)
        assert.deepStrictEqual(yield* answerBytes(sql, copied.id), expected)
        assert.deepStrictEqual(yield* answerBytes(sql, fromTable.id), expected)
        const expectedLower = yield* answerBytes(sql, statedLower.id)
        assert.strictEqual(expectedLower.length, lower.length)
        assert.deepStrictEqual(yield* answerBytes(sql, fromWords.id), expectedLower)
        const read = yield* repo.latestOf(
          "protocol",
          es.map((e) => e.record.id),
          "draft"
        )
        const byId = new Map(read.map((s) => [s.id, s.answers]))
        assert.deepStrictEqual(byId.get(copied.id), byId.get(stated.id))
      }).pipe(Effect.provide(postgres))
    )

    it.effect("copies nothing for new scorecards without answers, and saves them", () =>
      Effect.gen(function* () {
        const sql = yield* PgClient.PgClient
        const repo = yield* ScorecardRepository
        const es = ["bare-1", "bare-2"].map((s) => entity("protocol", `copy-${s}`))
        yield* (yield* EntityRepository).upsert(es)
        const drafts = es.map((e) => scorecard(e, 1, "draft", { answers: [], evidence: [] }))
        const types = yield* sql.withTransaction(messagesWritten(sql, repo.saveDrafts(drafts)))
        assert.notInclude(types, "d")
        const read = yield* repo.latestOf(
          "protocol",
          es.map((e) => e.record.id),
          "draft"
        )
        assert.deepStrictEqual(new Set(read.map((s) => s.id)), new Set(drafts.map((s) => s.id)))
      }).pipe(Effect.provide(postgres))
    )

    it.effect("is undone with its transaction, and a failed copy leaves the session usable", () =>
      Effect.gen(function* () {
        const sql = yield* PgClient.PgClient
        const repo = yield* ScorecardRepository
        const es = ["undone", "refused", "kept", "bad-id"].map((s) => entity("protocol", `copy-${s}`))
        yield* (yield* EntityRepository).upsert(es)
        const [undone, refused, kept, badId] = es.map((e) => scorecard(e, 1, "draft")) as [
          StoredScorecard,
          StoredScorecard,
          StoredScorecard,
          StoredScorecard
        ]
        const rolledBack = yield* Effect.exit(
          sql.withTransaction(Effect.andThen(repo.saveDrafts([undone]), Effect.fail("abandon")))
        )
        assert.isTrue(Exit.isFailure(rolledBack))
        // A score above its maximum: the server refuses the copy (a check constraint).
        const over = { ...refused, answers: [answer("Q-1", "security", 5)] }
        // An id that is no UUID: the copy is failed by the client before the server sees a row.
        const notUuid = { ...badId, answers: [answer("Q-1", "security", 1, { id: "not-a-uuid" })] }
        const outcomes = yield* sql.withTransaction(
          Effect.gen(function* () {
            const a = yield* Effect.exit(repo.saveDrafts([over]))
            const b = yield* Effect.exit(repo.saveDrafts([notUuid]))
            yield* repo.saveDrafts([kept])
            return [a, b]
          })
        )
        const [a, b] = outcomes.map((exit) => (Exit.isFailure(exit) ? String(exit.cause) : "succeeded"))
        assert.include(a, "answers_score_within_max")
        assert.include(b, "not-a-uuid")
        for (const s of [undone, over, notUuid]) assert.deepStrictEqual(yield* answerBytes(sql, s.id), [])
        assert.strictEqual((yield* answerBytes(sql, kept.id)).length, kept.answers.length)
        const [{ n }] = (yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM scorecards
          WHERE id IN (${undone.id}::uuid, ${over.id}::uuid, ${notUuid.id}::uuid)`) as [{ n: number }]
        assert.strictEqual(n, 0)
      }).pipe(Effect.provide(postgres))
    )

    it.effect("where the session cannot copy, new scorecards' answers go by the statements, same rows", () =>
      Effect.gen(function* () {
        const sql = yield* PgClient.PgClient
        const repo = yield* ScorecardRepository
        const noCopy = statementsOnly(sql)
        const es = ["by-copy", "by-statements"].map((s) => entity("protocol", `copy-fallback-${s}`))
        yield* (yield* EntityRepository).upsert(es)
        const answers = awkward()
        const [copied, stated] = es.map((e) => scorecard(e, 1, "draft", { answers })) as [
          StoredScorecard,
          StoredScorecard
        ]
        yield* repo.saveDrafts([copied])
        assert.isUndefined(yield* noCopy.withTransaction(copySession(noCopy)))
        const types = yield* sql.withTransaction(
          messagesWritten(sql, bulk(noCopy).saveDrafts([tableBacked(stated)]))
        )
        assert.notInclude(types, "d")
        const expected = yield* answerBytes(sql, copied.id)
        assert.strictEqual(expected.length, answers.length)
        assert.deepStrictEqual(yield* answerBytes(sql, stated.id), expected)
      }).pipe(Effect.provide(postgres))
    )

    // A real timer cuts the copy off (the test clock does not run): the copy must let the event loop run.
    it.effect(
      "an interrupted copy is failed and awaited: the transaction rolls back on a sound session",
      () =>
        Effect.gen(function* () {
          const sql = yield* PgClient.PgClient
          function* endless(): Generator<Uint8Array> {
            const w = new CopyWriter()
            for (;;) {
              w.row(1)
              w.int4(1)
              if (w.full) yield w.take()!
            }
          }
          const exit = yield* Effect.exit(
            sql.withTransaction(
              Effect.gen(function* () {
                yield* sql`CREATE TABLE endless (n int4)`
                const session = yield* copySession(sql)
                yield* Effect.raceFirst(
                  copyIn(session!, "COPY endless FROM STDIN (FORMAT binary)", endless()),
                  cutOff(300)
                )
              })
            )
          )
          assert.include(Exit.isFailure(exit) ? String(exit.cause) : "", "cut off")
          // Every connection of the pool answers, and the table was rolled back with its rows.
          const [{ n }] = (yield* Effect.all(
            Array.from(
              { length: 5 },
              () => sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_class WHERE relname = 'endless'`
            ),
            { concurrency: 5 }
          ))[0] as [{ n: number }]
          assert.strictEqual(n, 0)
        })
    )

    // Live clock: the bounded wait runs on the effect clock, and the lock is held for real.
    it.effect(
      "an interrupted copy the server never answers (blocked behind a lock) gives up its session within the bound, and the pool answers",
      () =>
        Effect.gen(function* () {
          const sql = yield* PgClient.PgClient
          yield* sql`CREATE TABLE IF NOT EXISTS copy_locked (n int4)`
          const release = yield* Deferred.make<void>()
          const locked = yield* Deferred.make<void>()
          const holder = yield* Effect.forkChild(
            sql.withTransaction(
              Effect.gen(function* () {
                yield* sql`LOCK TABLE copy_locked IN ACCESS EXCLUSIVE MODE`
                yield* Deferred.succeed(locked, undefined)
                yield* Deferred.await(release)
              })
            )
          )
          yield* Deferred.await(locked)
          function* rows(): Generator<Uint8Array> {
            const w = new CopyWriter()
            w.row(1)
            w.int4(1)
            yield w.take()!
          }
          const started = performance.now()
          const exit = yield* Effect.exit(
            sql.withTransaction(
              Effect.gen(function* () {
                const session = yield* copySession(sql)
                yield* Effect.raceFirst(
                  copyIn(session!, "COPY copy_locked FROM STDIN (FORMAT binary)", rows()),
                  cutOff(300)
                )
              })
            )
          )
          const took = performance.now() - started
          assert.isTrue(Exit.isFailure(exit))
          assert.isAtLeast(took, InterruptWaitMs, "the interrupted copy waited for the server first")
          assert.isBelow(took, InterruptWaitMs + 4_000, "then gave up its session instead of waiting on")
          yield* Deferred.succeed(release, undefined)
          yield* Fiber.join(holder)
          const answers = yield* Effect.all(
            Array.from({ length: 5 }, () => sql<{ n: number }>`SELECT count(*)::int AS n FROM copy_locked`),
            { concurrency: 5 }
          )
          assert.deepStrictEqual(
            answers.map((r) => r[0]?.n),
            [0, 0, 0, 0, 0]
          )
          yield* sql`DROP TABLE copy_locked`
        }).pipe(TestClock.withLive),
      30_000
    )

    it.effect("is not there outside a transaction", () =>
      Effect.gen(function* () {
        const sql = yield* PgClient.PgClient
        assert.isUndefined(yield* copySession(sql))
        assert.isDefined(yield* sql.withTransaction(copySession(sql)))
      })
    )
  })
})
