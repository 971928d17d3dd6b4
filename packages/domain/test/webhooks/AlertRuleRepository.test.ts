import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { AlertRuleRepository } from "../../src/ports/AlertRuleRepository.ts"
import { AlertRuleRepositoryMemory } from "../../src/ports/memory/AlertRuleRepositoryMemory.ts"
import { rule, ruleId } from "../support/contract/events-alert-rule-repository.ts"

const A1 = ruleId(1)
const A2 = ruleId(2)
const B1 = ruleId(3)

describe("AlertRuleRepositoryMemory.layer", () => {
  it.effect("lists an account's rules without signing keys", () =>
    Effect.gen(function* () {
      const repo = yield* AlertRuleRepository
      yield* repo.create(rule(A1, "alice"))
      yield* repo.create(rule(B1, "bob"))
      yield* repo.create(rule(A2, "alice"))
      const listed = yield* repo.list("alice")
      assert.deepStrictEqual(
        listed.map((r) => r.id),
        [A1, A2]
      )
      assert.isTrue(listed.every((r) => !("signing_key" in r) && !("account_id" in r)))
      assert.strictEqual(yield* repo.signingKey(A1), `whsec_key-of-${A1}`)
    }).pipe(Effect.provide(AlertRuleRepositoryMemory.layer))
  )

  it.effect("delete by id within an account: another account's rule is not found and stays", () =>
    Effect.gen(function* () {
      const repo = yield* AlertRuleRepository
      yield* repo.create(rule(A1, "alice"))
      const foreign = yield* Effect.exit(repo.delete("bob", A1))
      assert.isTrue(Exit.isFailure(foreign))
      assert.strictEqual((yield* Effect.flip(repo.get("bob", A1)))._tag, "AlertRuleNotFound")
      assert.lengthOf(yield* repo.list("alice"), 1)
      yield* repo.delete("alice", A1)
      assert.lengthOf(yield* repo.list("alice"), 0)
      assert.strictEqual((yield* Effect.flip(repo.delete("alice", A1)))._tag, "AlertRuleNotFound")
    }).pipe(Effect.provide(AlertRuleRepositoryMemory.layer))
  )

  it.effect("finds the rules, of every account, that match an event", () =>
    Effect.gen(function* () {
      const repo = yield* AlertRuleRepository
      yield* repo.create(rule(A1, "alice", { slugs: ["aave-v4"] }))
      yield* repo.create(rule(A2, "alice", { entity_types: ["chain"] }))
      yield* repo.create(rule(B1, "bob", { events: ["rating.changed"] }))
      const matched = yield* repo.matching({
        event: "rating.changed",
        data: { entity_type: "protocol", entity_slug: "aave-v4" }
      })
      assert.deepStrictEqual(
        matched.map((r) => r.id),
        [A1, B1]
      )
    }).pipe(Effect.provide(AlertRuleRepositoryMemory.layer))
  )
})
