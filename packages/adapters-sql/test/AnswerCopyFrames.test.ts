/**
 * The CopyData messages of new scorecards' answers: a written message's
 * buffer is reused for a later one, which may not change a byte of what is
 * stored: copies that span many messages and share an answer table store
 * the rows the statements store.
 */
import { assert, describe, it } from "@effect/vitest"
import { PgClient } from "@effect/sql-pg"
import { answerTable, withLazyAnswers } from "@ratings/domain/import/ImportAnswerTable"
import type { Answer } from "@ratings/domain/model/Answer"
import { EntityRepository } from "@ratings/domain/ports/EntityRepository"
import { ScorecardRepository, type StoredScorecard } from "@ratings/domain/ports/ScorecardRepository"
import { answer, entity, scorecard } from "@ratings/domain/test-support/contract/ratings-fixtures"
import { Effect, Layer } from "effect"
import * as PgEntityRepository from "../src/PgEntityRepository.ts"
import * as PgScorecardRepository from "../src/PgScorecardRepository.ts"
import { CopyWriter } from "../src/scorecards/CopyFrames.ts"
import { bulk } from "../src/scorecards/ScorecardBulk.ts"
import { statementsOnly } from "./StatementsOnly.ts"
import { answerBytes } from "./AnswerBytes.ts"
import { TestDatabase } from "./TestDatabase.ts"

const postgres = Layer.merge(PgEntityRepository.layer, PgScorecardRepository.layer)

/** The bytes of the messages of `rows` rows of one int4 each, from `w`. */
const framesOf = (w: CopyWriter, rows: number): Array<Uint8Array> => {
  const out: Array<Uint8Array> = []
  for (let i = 0; i < rows; i++) {
    w.row(1)
    w.int4(i)
    if (w.full) out.push(w.take()!)
  }
  w.end()
  out.push(w.take()!)
  return out
}

describe("CopyWriter's messages", () => {
  it("reuses a written message's buffer, and the messages are those of a writer that does not", () => {
    const rows = 100_000
    const fresh = framesOf(new CopyWriter(), rows).map((f) => [...f])
    const w = new CopyWriter()
    const seen = new Set<ArrayBufferLike>()
    const reused: Array<Array<number>> = []
    let buffersReused = 0
    for (let i = 0; i < rows; i++) {
      w.row(1)
      w.int4(i)
      if (w.full) {
        const frame = w.take()!
        if (seen.has(frame.buffer)) buffersReused++
        seen.add(frame.buffer)
        reused.push([...frame])
        w.release(frame)
      }
    }
    w.end()
    reused.push([...w.take()!])
    assert.isAbove(fresh.length, 3, "several messages")
    assert.isAtLeast(buffersReused, fresh.length - 3, "a released buffer is used again")
    assert.deepStrictEqual(reused, fresh)
  })

  it("begins a copy with a clean header on a reused buffer", () => {
    const fresh = [...framesOf(new CopyWriter(), 3)[0]!]
    // Buffers given back dirty, then a new copy's writer.
    const dirty = framesOf(new CopyWriter(), 100_000).slice(0, -1)
    for (const frame of dirty) {
      new Uint8Array(frame.buffer).fill(0xff)
      new CopyWriter().release(frame)
    }
    assert.deepStrictEqual([...framesOf(new CopyWriter(), 3)[0]!], fresh)
  })

  it("does not keep a buffer grown for a row larger than a message", () => {
    const w = new CopyWriter()
    w.row(1)
    w.text("x".repeat(600_000))
    const big = w.take()!
    w.release(big)
    w.row(1)
    w.int4(7)
    const next = w.take()!
    assert.notStrictEqual(next.buffer, big.buffer)
    assert.isBelow(next.buffer.byteLength, big.buffer.byteLength)
  })
})

/** Answers whose fields repeat (a few tuples), one with a long text, some non-ASCII. */
const manyAnswers = (n: number, salt: string): Array<Answer> =>
  Array.from({ length: n }, (_, i) =>
    answer(`Q-${i % 7}`, i % 3 === 0 ? "security" : "gövernance", i % 5, {
      response: i % 11 === 0 ? `long ${salt} ${"r".repeat(400)}` : "yes",
      rationale: i % 2 === 0 ? "audited twice ✓" : null
    })
  )

describe("copies that share an answer table", () => {
  it.layer(TestDatabase)((it) => {
    it.effect("store the rows the statements store, over many messages and copies", () =>
      Effect.gen(function* () {
        const sql = yield* PgClient.PgClient
        const repo = yield* ScorecardRepository
        const noCopy = statementsOnly(sql)
        const names = ["a", "b", "c", "d"]
        const es = names.flatMap((s) => [
          entity("protocol", `frames-${s}`),
          entity("protocol", `stated-${s}`)
        ])
        yield* (yield* EntityRepository).upsert(es)
        // Some 20,000 answers a scorecard: each copy spans several messages.
        const sets = names.map((s) => manyAnswers(20_000, s))
        const table = answerTable()
        const backed = (s: StoredScorecard): StoredScorecard => {
          const { answers, ...rest } = s
          return withLazyAnswers(rest, table.add(answers))
        }
        const copied = sets.map((answers, i) => backed(scorecard(es[i * 2]!, 1, "draft", { answers })))
        const stated = sets.map((answers, i) => scorecard(es[i * 2 + 1]!, 1, "draft", { answers }))
        // One copy per call, each over buffers the copies before it gave back.
        for (const s of copied) yield* repo.saveDrafts([s])
        yield* sql.withTransaction(bulk(noCopy).saveDrafts(stated))
        for (const [i, s] of copied.entries()) {
          const expected = yield* answerBytes(sql, stated[i]!.id)
          assert.strictEqual(expected.length, 20_000)
          assert.deepStrictEqual(yield* answerBytes(sql, s.id), expected)
        }
      }).pipe(Effect.provide(postgres))
    )
  })
})
