/**
 * The behaviour of the RubricRepository port, run against every implementation: over
 * memory in the domain's test/ports/memory/RubricRepositoryMemory.test.ts, over
 * Postgres in adapters-sql's PgRubricRepository.test.ts.
 */
import { assert } from "@effect/vitest"
import { type EntityType, EntityTypes } from "../../../src/model/EntityType.ts"
import type { Question } from "../../../src/model/Question.ts"
import { RubricRepository } from "../../../src/ports/RubricRepository.ts"
import { Effect } from "effect"
import { contract, type Target } from "./ratings-harness.ts"

export const question = (
  entity_type: EntityType,
  id: string,
  position: number,
  over: Partial<Question> = {}
): Question => ({
  id,
  entity_type,
  domain: "security",
  text: `Question ${id}?`,
  weight: 1.5,
  max_score: 4,
  criteria: [
    { score: 0, description: "none" },
    { score: 4, description: "full" }
  ],
  position,
  ...over
})

export const rubricRepositoryContract = <D>(target: Target<RubricRepository, D>) =>
  contract("RubricRepository contract", target, (test) => {
    test("questions of a type come in canonical order (position)", () =>
      Effect.gen(function* () {
        const repo = yield* RubricRepository
        const qs = [
          question("protocol", "P-3", 2),
          question("protocol", "P-1", 0),
          question("protocol", "P-2", 1)
        ]
        yield* repo.replace("protocol", qs)
        assert.deepStrictEqual(
          (yield* repo.questions("protocol")).map((q) => q.id),
          ["P-1", "P-2", "P-3"]
        )
      }))

    test("a question reads back as written: domain, text, weight, max_score, criteria, a chain's gate", () =>
      Effect.gen(function* () {
        const repo = yield* RubricRepository
        const gated = question("chain", "C-1", 0, {
          gate: "finality",
          weight: 0.1 + 0.2,
          domain: "consensus"
        })
        const plain = question("chain", "C-2", 1, { criteria: [] })
        yield* repo.replace("chain", [gated, plain])
        assert.deepStrictEqual(yield* repo.questions("chain"), [gated, plain])
      }))

    test("replace swaps the catalogue of one type and leaves the other types alone", () =>
      Effect.gen(function* () {
        const repo = yield* RubricRepository
        yield* repo.replace("bridge", [question("bridge", "B-1", 0), question("bridge", "B-2", 1)])
        yield* repo.replace("oracle", [question("oracle", "O-1", 0)])
        yield* repo.replace("bridge", [question("bridge", "B-9", 0)])
        assert.deepStrictEqual(
          (yield* repo.questions("bridge")).map((q) => q.id),
          ["B-9"]
        )
        assert.deepStrictEqual(
          (yield* repo.questions("oracle")).map((q) => q.id),
          ["O-1"]
        )
        yield* repo.replace("oracle", [])
        assert.deepStrictEqual(yield* repo.questions("oracle"), [])
      }))

    test("replacing a catalogue with the same questions twice changes nothing", () =>
      Effect.gen(function* () {
        const repo = yield* RubricRepository
        const qs = [question("vault", "V-1", 0), question("vault", "V-2", 1)]
        yield* repo.replace("vault", qs)
        yield* repo.replace("vault", qs)
        assert.deepStrictEqual(yield* repo.questions("vault"), qs)
      }))

    test("questionCounts gives every type's catalogue size in one read, 0 for a type without one", () =>
      Effect.gen(function* () {
        const repo = yield* RubricRepository
        yield* repo.replace("bridge", [question("bridge", "B-1", 0), question("bridge", "B-2", 1)])
        yield* repo.replace("oracle", [question("oracle", "O-1", 0)])
        const counts = yield* repo.questionCounts()
        for (const type of EntityTypes)
          assert.strictEqual(counts[type], (yield* repo.questions(type)).length, type)
        assert.strictEqual(counts.bridge, 2)
        assert.strictEqual(counts.token, 0)
      }))

    test("a type without a catalogue has no questions", () =>
      Effect.gen(function* () {
        assert.deepStrictEqual(yield* (yield* RubricRepository).questions("token"), [])
      }))
  })
