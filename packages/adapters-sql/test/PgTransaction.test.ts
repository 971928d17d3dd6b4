import { assert, describe, it } from "@effect/vitest"
import { EntityRepository } from "@ratings/domain/ports/EntityRepository"
import { ScorecardRepository } from "@ratings/domain/ports/ScorecardRepository"
import { StoreError } from "@ratings/domain/ports/StoreError"
import { Transaction } from "@ratings/domain/ports/Transaction"
import { Effect, Exit, Layer, Option } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import * as PgEntityRepository from "../src/PgEntityRepository.ts"
import * as PgScorecardRepository from "../src/PgScorecardRepository.ts"
import * as PgTransaction from "../src/PgTransaction.ts"
import { entity, scorecard } from "@ratings/domain/test-support/contract/ratings-fixtures"
import { TestDatabase } from "./TestDatabase.ts"

const ports = Layer.mergeAll(PgEntityRepository.layer, PgScorecardRepository.layer, PgTransaction.layer)

class Boom extends Error {
  readonly _tag = "Boom"
}

describe("PgTransaction", () => {
  it.layer(TestDatabase)((it) => {
    it.effect("a failing unit of work leaves nothing written", () =>
      Effect.gen(function* () {
        const tx = yield* Transaction
        const entities = yield* EntityRepository
        const scorecards = yield* ScorecardRepository
        const e = entity("protocol", "never-written")
        const exit = yield* Effect.exit(
          tx.run(
            Effect.gen(function* () {
              yield* entities.upsert([e])
              yield* scorecards.saveDraft(scorecard(e, 1, "draft"))
              return yield* Effect.fail(new Boom("after two writes"))
            })
          )
        )
        assert.isTrue(Exit.isFailure(exit))
        assert.isTrue(Option.isNone(yield* entities.findBySlug("protocol", "never-written")))
        assert.deepStrictEqual(yield* scorecards.listForEntity("protocol", e.record.id), [])
      }).pipe(Effect.provide(ports))
    )

    it.effect("a unit of work that succeeds commits every write and returns its value", () =>
      Effect.gen(function* () {
        const tx = yield* Transaction
        const entities = yield* EntityRepository
        const scorecards = yield* ScorecardRepository
        const e = entity("protocol", "written")
        const card = scorecard(e, 1, "draft")
        const value = yield* tx.run(
          Effect.gen(function* () {
            yield* entities.upsert([e])
            yield* scorecards.saveDraft(card)
            return 42
          })
        )
        assert.strictEqual(value, 42)
        assert.deepStrictEqual(yield* scorecards.findById("protocol", card.id), Option.some(card))
      }).pipe(Effect.provide(ports))
    )

    it.effect("the unit's own failure passes through unchanged", () =>
      Effect.gen(function* () {
        const tx = yield* Transaction
        const failure = yield* Effect.flip(tx.run(Effect.fail(new Boom("mine"))))
        assert.instanceOf(failure, Boom)
      }).pipe(Effect.provide(ports))
    )

    it.effect("a nested run joins the outer unit: the outer failure undoes the inner run's writes", () =>
      Effect.gen(function* () {
        const tx = yield* Transaction
        const entities = yield* EntityRepository
        const exit = yield* Effect.exit(
          tx.run(
            Effect.gen(function* () {
              yield* tx.run(entities.upsert([entity("chain", "inner-write")]))
              return yield* Effect.fail(new Boom("outer"))
            })
          )
        )
        assert.isTrue(Exit.isFailure(exit))
        assert.isTrue(Option.isNone(yield* entities.findBySlug("chain", "inner-write")))
      }).pipe(Effect.provide(ports))
    )

    it.effect(
      "a database failure inside the unit becomes a StoreError with the operation and the server's reason",
      () =>
        Effect.gen(function* () {
          const tx = yield* Transaction
          const sql = yield* SqlClient.SqlClient
          const failure = yield* Effect.flip(tx.run(sql`SELECT * FROM no_such_table`))
          assert.instanceOf(failure, StoreError)
          assert.include((failure as StoreError).message, "transaction: ")
          assert.include((failure as StoreError).message, `relation "no_such_table" does not exist`)
        }).pipe(Effect.provide(ports))
    )
  })
})

describe("toStoreError", () => {
  const failure = (cause: unknown, message?: string) =>
    new SqlError.SqlError({
      reason: new SqlError.UnknownError({ cause, ...(message === undefined ? {} : { message }) })
    })

  it("names the operation with the server's message and the detail naming the key", () => {
    const error = PgTransaction.toStoreError("save x")(
      failure(
        {
          message: 'duplicate key value violates unique constraint "x_pkey"',
          detail: "Key (id)=(1) already exists."
        },
        "Query failed"
      )
    )
    assert.instanceOf(error, StoreError)
    assert.strictEqual(
      error.message,
      'save x: duplicate key value violates unique constraint "x_pkey" (Key (id)=(1) already exists.)'
    )
  })

  it("leaves out a check violation's detail, which prints the whole row", () => {
    const error = PgTransaction.toStoreError("save key")(
      failure({ message: 'new row violates check constraint "k"', detail: "Failing row contains (secret)." })
    )
    assert.strictEqual(error.message, 'save key: new row violates check constraint "k"')
  })

  it("falls back to the driver's message when the cause has no text to give (not an object, or no non-empty text field)", () => {
    const causes: ReadonlyArray<unknown> = [
      undefined,
      null,
      "a string",
      42,
      {},
      { message: "" },
      { message: 7, detail: ["not text"] }
    ]
    for (const cause of causes) {
      assert.strictEqual(
        PgTransaction.toStoreError("read")(failure(cause, "Query failed")).message,
        "read: Query failed"
      )
    }
    assert.strictEqual(
      PgTransaction.toStoreError("read")(failure({ detail: "Key (id)=(2)." }, "Query failed")).message,
      "read: Query failed (Key (id)=(2).)"
    )
  })
})
