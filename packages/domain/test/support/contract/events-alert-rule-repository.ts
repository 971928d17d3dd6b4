/**
 * The behaviour of the AlertRuleRepository port, written once and run against
 * every implementation, so they cannot drift: the domain's layerMemory in
 * test/ports/memory/AlertRuleRepositoryMemory.test.ts, the Postgres adapter in
 * adapters-sql's PgAlertRuleRepository.test.ts. Each test gets a fresh, empty
 * repository from `makeLayer`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, type Layer } from "effect"
import { type AlertRuleRecord, HealthyEndpoint, type MatchableEvent } from "../../../src/model/AlertRule.ts"
import { AlertRuleRepository } from "../../../src/ports/AlertRuleRepository.ts"

export const rule = (
  id: string,
  account_id: string,
  overrides: Partial<AlertRuleRecord> = {}
): AlertRuleRecord => ({
  id,
  account_id,
  signing_key: `whsec_key-of-${id}`,
  name: null,
  entity_types: [],
  slugs: [],
  events: [],
  channels: { webhook_url: `https://hooks.example.com/${id}` },
  created_at: "2026-08-01T00:00:00+00:00",
  ...overrides
})

/** The sending state of a healthy rule that was never rotated. */
export const healthy = { previous_signing_key: null, disabled: false, failing: false } as const

export const ruleId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`
const A1 = ruleId(1)
const A2 = ruleId(2)
const B1 = ruleId(3)
const B2 = ruleId(4)

const event = (
  kind: string,
  entity_type: MatchableEvent["data"]["entity_type"],
  entity_slug: string
): MatchableEvent => ({ event: kind, data: { entity_type, entity_slug } })

export const alertRuleRepositoryContract = (
  name: string,
  makeLayer: () => Layer.Layer<AlertRuleRepository, unknown>
) =>
  describe(`AlertRuleRepository contract: ${name}`, () => {
    const run = <A, E>(body: Effect.Effect<A, E, AlertRuleRepository>) =>
      body.pipe(Effect.provide(makeLayer()), Effect.orDie)

    it.effect("lists an account's rules oldest first, without signing keys or account", () =>
      run(
        Effect.gen(function* () {
          const repo = yield* AlertRuleRepository
          yield* repo.create(rule(A2, "alice", { created_at: "2026-08-01T00:00:00+00:00" }))
          yield* repo.create(rule(B1, "bob"))
          yield* repo.create(rule(A1, "alice", { created_at: "2026-08-01T00:00:00+00:00" }))
          const listed = yield* repo.list("alice")
          assert.deepStrictEqual(
            listed.map((r) => r.id),
            [A2, A1]
          )
          assert.isTrue(listed.every((r) => !("signing_key" in r) && !("account_id" in r)))
          assert.lengthOf(yield* repo.list("carol"), 0)
        })
      )
    )

    it.effect("create returns the rule as served, and get reads it back unchanged", () =>
      run(
        Effect.gen(function* () {
          const repo = yield* AlertRuleRepository
          const record = rule(A1, "alice", {
            name: "Watch lending",
            entity_types: ["protocol", "vault"],
            slugs: ["aave-v4", "morpho-blue"],
            events: ["rating.changed", "rating.new"],
            channels: { webhook_url: "http://127.0.0.1:8080/hook?x=1" },
            created_at: "2026-08-01T12:34:56.789000+00:00"
          })
          const created = yield* repo.create(record)
          const { signing_key: _key, account_id: _account, ...settings } = record
          const served = { ...settings, ...HealthyEndpoint }
          assert.deepStrictEqual(created, served)
          assert.deepStrictEqual(yield* repo.get("alice", A1), served)
        })
      )
    )

    it.effect("the signing key is read back for the dispatcher, by rule id alone", () =>
      run(
        Effect.gen(function* () {
          const repo = yield* AlertRuleRepository
          yield* repo.create(rule(A1, "alice"))
          yield* repo.create(rule(B1, "bob", { signing_key: "whsec_bobs" }))
          assert.strictEqual(yield* repo.signingKey(A1), `whsec_key-of-${A1}`)
          assert.strictEqual(yield* repo.signingKey(B1), "whsec_bobs")
          assert.strictEqual((yield* Effect.flip(repo.signingKey(B2)))._tag, "AlertRuleNotFound")
        })
      )
    )

    it.effect(
      "a rule's URL and signing key are read for sending, by rule id alone; a deleted rule has none",
      () =>
        run(
          Effect.gen(function* () {
            const repo = yield* AlertRuleRepository
            yield* repo.create(rule(A1, "alice"))
            yield* repo.create(rule(B1, "bob", { signing_key: "whsec_bobs" }))
            assert.deepStrictEqual(yield* repo.destination(B1), {
              webhook_url: `https://hooks.example.com/${B1}`,
              signing_key: "whsec_bobs",
              ...healthy
            })
            yield* repo.delete("alice", A1)
            assert.strictEqual((yield* Effect.flip(repo.destination(A1)))._tag, "AlertRuleNotFound")
            assert.strictEqual((yield* Effect.flip(repo.destination(B2)))._tag, "AlertRuleNotFound")
            assert.strictEqual((yield* Effect.flip(repo.destination("not-a-uuid")))._tag, "AlertRuleNotFound")
          })
        )
    )

    it.effect(
      "the destinations of many rules are read at once, under the ids as given; a deleted, unknown or malformed id is absent",
      () =>
        run(
          Effect.gen(function* () {
            const repo = yield* AlertRuleRepository
            yield* repo.create(rule(A1, "alice"))
            yield* repo.create(
              rule(A2, "alice", { channels: { webhook_url: "https://other.example.com/hook" } })
            )
            yield* repo.create(rule(B1, "bob", { signing_key: "whsec_bobs" }))
            const read = yield* repo.destinations([A1, B1, A1, B2, "not-a-uuid", A2])
            assert.deepStrictEqual(
              [...read.entries()].sort(([a], [b]) => a.localeCompare(b)),
              [
                [
                  A1,
                  {
                    webhook_url: `https://hooks.example.com/${A1}`,
                    signing_key: `whsec_key-of-${A1}`,
                    ...healthy
                  }
                ],
                [
                  A2,
                  {
                    webhook_url: "https://other.example.com/hook",
                    signing_key: `whsec_key-of-${A2}`,
                    ...healthy
                  }
                ],
                [
                  B1,
                  { webhook_url: `https://hooks.example.com/${B1}`, signing_key: "whsec_bobs", ...healthy }
                ]
              ]
            )
            assert.deepStrictEqual(yield* repo.destination(B1), read.get(B1))
            // A rule deleted after its destination was read is gone from the next read.
            yield* repo.delete("alice", A1)
            const after = yield* repo.destinations([A1, B1])
            assert.deepStrictEqual([...after.keys()], [B1])
            assert.strictEqual((yield* repo.destinations([])).size, 0)
          })
        )
    )

    it.effect("nobody reads another account's rule: it is not found, not forbidden", () =>
      run(
        Effect.gen(function* () {
          const repo = yield* AlertRuleRepository
          yield* repo.create(rule(A1, "alice"))
          const foreign = yield* Effect.flip(repo.get("bob", A1))
          assert.strictEqual(foreign._tag, "AlertRuleNotFound")
          assert.strictEqual(foreign.rule_id, A1)
          assert.strictEqual((yield* Effect.flip(repo.get("alice", B2)))._tag, "AlertRuleNotFound")
          assert.strictEqual((yield* Effect.flip(repo.get("alice", "not-a-uuid")))._tag, "AlertRuleNotFound")
        })
      )
    )

    it.effect(
      "create refuses a rule past the account's bound, atomically: concurrent creates cannot pass it together",
      () =>
        run(
          Effect.gen(function* () {
            const repo = yield* AlertRuleRepository
            const outcomes = yield* Effect.forEach(
              [1, 2, 3, 4, 5, 6],
              (n) => Effect.result(repo.create(rule(ruleId(100 + n), "alice"), 3)),
              { concurrency: "unbounded" }
            )
            const refused = outcomes.filter((o) => o._tag === "Failure")
            assert.lengthOf(refused, 3)
            for (const o of refused) {
              assert.strictEqual(o.failure._tag, "AlertRuleLimitReached")
              assert.strictEqual(o.failure.limit, 3)
            }
            assert.lengthOf(yield* repo.list("alice"), 3)
            yield* repo.create(rule(B1, "bob"), 3)
            assert.lengthOf(yield* repo.list("bob"), 1, "the bound is per account")
          })
        )
    )

    it.effect("delete by id within an account: another account's rule is not found and stays", () =>
      run(
        Effect.gen(function* () {
          const repo = yield* AlertRuleRepository
          yield* repo.create(rule(A1, "alice"))
          yield* repo.create(rule(A2, "alice"))
          const foreign = yield* Effect.exit(repo.delete("bob", A1))
          assert.isTrue(Exit.isFailure(foreign))
          assert.lengthOf(yield* repo.list("alice"), 2)
          yield* repo.delete("alice", A1)
          assert.deepStrictEqual(
            (yield* repo.list("alice")).map((r) => r.id),
            [A2]
          )
          assert.strictEqual((yield* Effect.flip(repo.delete("alice", A1)))._tag, "AlertRuleNotFound")
          assert.strictEqual((yield* Effect.flip(repo.signingKey(A1)))._tag, "AlertRuleNotFound")
          assert.strictEqual(
            (yield* Effect.flip(repo.delete("alice", "not-a-uuid")))._tag,
            "AlertRuleNotFound"
          )
        })
      )
    )

    it.effect("finds the rules, of every account, that match an event", () =>
      run(
        Effect.gen(function* () {
          const repo = yield* AlertRuleRepository
          yield* repo.create(rule(A1, "alice", { slugs: ["aave-v4"] }))
          yield* repo.create(rule(A2, "alice", { entity_types: ["chain"] }))
          yield* repo.create(rule(B1, "bob", { events: ["rating.changed"] }))
          const matched = yield* repo.matching(event("rating.changed", "protocol", "aave-v4"))
          assert.deepStrictEqual(
            matched.map((r) => r.id),
            [A1, B1]
          )
          assert.isTrue(matched.every((r) => !("signing_key" in r)))
        })
      )
    )

    it.effect("a rule watches the conjunction of its filters; an empty filter admits everything", () =>
      run(
        Effect.gen(function* () {
          const repo = yield* AlertRuleRepository
          yield* repo.create(rule(A1, "alice"))
          yield* repo.create(
            rule(A2, "alice", {
              entity_types: ["protocol", "vault"],
              slugs: ["aave-v4", "morpho-blue"],
              events: ["rating.grade_transition"]
            })
          )
          const ids = (e: MatchableEvent) => Effect.map(repo.matching(e), (rules) => rules.map((r) => r.id))
          assert.deepStrictEqual(yield* ids(event("rating.grade_transition", "vault", "morpho-blue")), [
            A1,
            A2
          ])
          assert.deepStrictEqual(yield* ids(event("rating.changed", "vault", "morpho-blue")), [A1])
          assert.deepStrictEqual(yield* ids(event("rating.grade_transition", "chain", "morpho-blue")), [A1])
          assert.deepStrictEqual(yield* ids(event("rating.grade_transition", "vault", "aave-v3")), [A1])
          assert.deepStrictEqual(yield* ids(event("rating.new", "bridge", "wormhole")), [A1])
        })
      )
    )

    it.effect("matchingEach gives, in one read, each event's rules as matching does, in order", () =>
      run(
        Effect.gen(function* () {
          const repo = yield* AlertRuleRepository
          yield* repo.create(rule(A1, "alice", { slugs: ["aave-v4"] }))
          yield* repo.create(rule(A2, "alice", { entity_types: ["chain"], events: ["rating.new"] }))
          yield* repo.create(rule(B1, "bob"))
          const events = [
            event("rating.changed", "protocol", "aave-v4"),
            event("webhook.test", "protocol", "aave-v4"),
            event("rating.new", "chain", "ethereum"),
            event("rating.changed", "chain", "ethereum"),
            event("rating.new", "chain", "aave-v4")
          ]
          const each = yield* repo.matchingEach(events)
          assert.deepStrictEqual(
            each.map((rules) => rules.map((r) => r.id)),
            [[A1, B1], [], [A2, B1], [B1], [A1, A2, B1]]
          )
          for (const [i, e] of events.entries()) assert.deepStrictEqual(each[i], yield* repo.matching(e))
          assert.deepStrictEqual(yield* repo.matchingEach([]), [])
        })
      )
    )

    it.effect("webhook.test never matches: it is addressed to one rule on request", () =>
      run(
        Effect.gen(function* () {
          const repo = yield* AlertRuleRepository
          yield* repo.create(rule(A1, "alice"))
          assert.lengthOf(yield* repo.matching(event("webhook.test", "protocol", "aave-v4")), 0)
        })
      )
    )

    it.effect("a rule id that already exists is a defect of the caller", () =>
      run(
        Effect.gen(function* () {
          const repo = yield* AlertRuleRepository
          yield* repo.create(rule(A1, "alice"))
          const again = yield* Effect.exit(repo.create(rule(A1, "bob")))
          assert.isTrue(Exit.hasDies(again))
          assert.lengthOf(yield* repo.list("bob"), 0)
          assert.strictEqual(yield* repo.signingKey(A1), `whsec_key-of-${A1}`)
        })
      )
    )
  })
