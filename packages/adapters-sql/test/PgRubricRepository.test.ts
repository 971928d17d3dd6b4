import { assert, describe, it } from "@effect/vitest"
import { PgClient } from "@effect/sql-pg"
import { RubricRepository } from "@ratings/domain/ports/RubricRepository"
import { Effect, Exit } from "effect"
import * as PgRubricRepository from "../src/PgRubricRepository.ts"
import {
  question,
  rubricRepositoryContract
} from "@ratings/domain/test-support/contract/ratings-rubric-repository"
import { postgresTarget } from "./PostgresTarget.ts"
import { TestDatabase } from "./TestDatabase.ts"

rubricRepositoryContract(postgresTarget(PgRubricRepository.layer))

const failureText = (exit: Exit.Exit<unknown, unknown>) => (Exit.isFailure(exit) ? String(exit.cause) : "")

describe("PgRubricRepository", () => {
  it.layer(TestDatabase)((it) => {
    it.effect("replacing a catalogue with the same questions rewrites no row", () =>
      Effect.gen(function* () {
        const repo = yield* RubricRepository
        const sql = yield* PgClient.PgClient
        const qs = Array.from({ length: 62 }, (_, i) => question("bridge", `BR-${i}`, i))
        yield* repo.replace("bridge", qs)
        const versions = sql<{ xmin: string }>`SELECT xmin::text AS xmin FROM questions ORDER BY position`
        const before = yield* versions
        yield* repo.replace("bridge", [...qs].reverse())
        assert.deepStrictEqual(yield* versions, before)
        assert.strictEqual((yield* repo.questions("bridge")).length, 62)
      }).pipe(Effect.provide(PgRubricRepository.layer))
    )

    it.effect("a question of another type is refused, and the catalogue is left as it was", () =>
      Effect.gen(function* () {
        const repo = yield* RubricRepository
        yield* repo.replace("oracle", [question("oracle", "O-1", 0)])
        const exit = yield* Effect.exit(repo.replace("oracle", [question("protocol", "P-1", 0)]))
        assert.include(failureText(exit), "P-1 is a protocol question")
        assert.deepStrictEqual(
          (yield* repo.questions("oracle")).map((q) => q.id),
          ["O-1"]
        )
      }).pipe(Effect.provide(PgRubricRepository.layer))
    )

    it.effect(
      "schema constraints: positions are unique per type, and only chain questions decide a gate",
      () =>
        Effect.gen(function* () {
          const repo = yield* RubricRepository
          const twice = yield* Effect.exit(
            repo.replace("token", [question("token", "T-1", 0), question("token", "T-2", 0)])
          )
          assert.include(failureText(twice), "questions_position_unique")
          const gated = yield* Effect.exit(
            repo.replace("token", [question("token", "T-1", 0, { gate: "finality" })])
          )
          assert.include(failureText(gated), "questions_gate_on_chains")
        }).pipe(Effect.provide(PgRubricRepository.layer))
    )

    it.effect("a chain question with gate null reads back without the key", () =>
      Effect.gen(function* () {
        const repo = yield* RubricRepository
        yield* repo.replace("chain", [question("chain", "C-1", 0, { gate: null })])
        const [read] = yield* repo.questions("chain")
        assert.isFalse("gate" in read!)
      }).pipe(Effect.provide(PgRubricRepository.layer))
    )
  })
})
