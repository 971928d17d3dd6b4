import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { AlertRuleRepository } from "@ratings/domain/ports/AlertRuleRepository"
import * as PgAlertRuleRepository from "../src/PgAlertRuleRepository.ts"
import { SecretBox } from "../src/SecretBox.ts"
import {
  alertRuleRepositoryContract,
  rule,
  ruleId
} from "@ratings/domain/test-support/contract/events-alert-rule-repository"
import { secondConnection, sharedDatabase } from "./PostgresTarget.ts"
import { TestDatabase } from "./TestDatabase.ts"

const serverKey = Buffer.alloc(32, 3).toString("base64")
const otherServerKey = Buffer.alloc(32, 4).toString("base64")

/** One database for the file, emptied before each contract test. */
const database = sharedDatabase(["alert_rules"])

alertRuleRepositoryContract("PgAlertRuleRepository", () =>
  PgAlertRuleRepository.layer.pipe(Layer.provide(Layer.merge(database, SecretBox.layerRandom)))
)

const repository = PgAlertRuleRepository.layer.pipe(Layer.provide(SecretBox.layer(serverKey)))

describe("PgAlertRuleRepository", () => {
  it.layer(TestDatabase)((it) => {
    it.effect("the signing key is encrypted at rest: the stored column never contains the key text", () =>
      Effect.gen(function* () {
        const repo = yield* AlertRuleRepository
        const sql = yield* SqlClient.SqlClient
        const key = "whsec_dGhpcy1pcy1hLXZlcnktc2VjcmV0LXNpZ25pbmcta2V5"
        yield* repo.create(rule(ruleId(11), "alice", { signing_key: key }))
        const [row] = yield* sql<{ readonly sealed: string; readonly whole: string }>`
          SELECT signing_key_sealed AS sealed, to_jsonb(r)::text AS whole FROM alert_rules r WHERE id = ${ruleId(11)}
        `
        assert.match(row!.sealed, /^v1:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/)
        for (const fragment of [key, key.slice(6), key.slice(6, 20)]) assert.notInclude(row!.whole, fragment)
        assert.strictEqual(yield* repo.signingKey(ruleId(11)), key)
      }).pipe(Effect.provide(repository))
    )

    it.effect(
      "under another server key the signing key cannot be read: a defect carrying the SecretBoxError",
      () =>
        Effect.gen(function* () {
          yield* Effect.gen(function* () {
            yield* (yield* AlertRuleRepository).create(rule(ruleId(12), "alice"))
          }).pipe(Effect.provide(repository))
          const exit = yield* Effect.gen(function* () {
            return yield* (yield* AlertRuleRepository).signingKey(ruleId(12))
          }).pipe(
            Effect.provide(PgAlertRuleRepository.layer.pipe(Layer.provide(SecretBox.layer(otherServerKey)))),
            Effect.exit
          )
          assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause))
          assert.include(
            String(Cause.squash((exit as Exit.Failure<string, unknown>).cause)),
            "could not decrypt"
          )
        })
    )

    it.effect("a sealed key copied onto another rule's row does not open there", () =>
      Effect.gen(function* () {
        const repo = yield* AlertRuleRepository
        const sql = yield* SqlClient.SqlClient
        yield* repo.create(rule(ruleId(13), "alice", { signing_key: "whsec_alice" }))
        yield* repo.create(rule(ruleId(14), "mallory", { signing_key: "whsec_mallory" }))
        yield* sql`
          UPDATE alert_rules SET signing_key_sealed = (SELECT signing_key_sealed FROM alert_rules WHERE id = ${ruleId(13)})
          WHERE id = ${ruleId(14)}
        `
        const exit = yield* Effect.exit(repo.signingKey(ruleId(14)))
        assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause))
      }).pipe(Effect.provide(repository))
    )

    it.effect(
      "opened keys are cached by rule and sealed text only: a re-sealed key is read anew, and a sealed key copied onto another rule still does not open there",
      () =>
        Effect.gen(function* () {
          const repo = yield* AlertRuleRepository
          const sql = yield* SqlClient.SqlClient
          const box = yield* Effect.provide(Effect.service(SecretBox), SecretBox.layer(serverKey))
          const [a, b] = [ruleId(16), ruleId(17)]
          yield* repo.create(rule(a, "alice", { signing_key: "whsec_first" }))
          yield* repo.create(rule(b, "mallory", { signing_key: "whsec_mallory" }))
          assert.strictEqual((yield* repo.destinations([a])).get(a)?.signing_key, "whsec_first")
          const resealed = yield* box.seal("whsec_second", `alert_rule:${a}`)
          yield* sql`UPDATE alert_rules SET signing_key_sealed = ${resealed} WHERE id = ${a}`
          assert.strictEqual((yield* repo.destinations([a])).get(a)?.signing_key, "whsec_second")
          assert.strictEqual((yield* repo.destination(a)).signing_key, "whsec_second")
          // a's sealed key is cached now; on b's row it must still fail to open.
          yield* sql`UPDATE alert_rules SET signing_key_sealed = ${resealed} WHERE id = ${b}`
          const exit = yield* Effect.exit(repo.destinations([b]))
          assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause))
        }).pipe(Effect.provide(repository))
    )

    it.effect("destinations finds a rule by its id in any letter case, under the id as given", () =>
      Effect.gen(function* () {
        const repo = yield* AlertRuleRepository
        const id = "0b8e7d21-3c4f-4a59-8e6d-1f2a3b4c5d6e"
        yield* repo.create(rule(id, "alice", { signing_key: "whsec_case" }))
        const read = yield* repo.destinations([id.toUpperCase()])
        assert.deepStrictEqual([...read.keys()], [id.toUpperCase()])
        assert.strictEqual(read.get(id.toUpperCase())?.signing_key, "whsec_case")
      }).pipe(Effect.provide(repository))
    )

    it.effect("a rule created by one server process is listed, matched and signed by another", () =>
      Effect.gen(function* () {
        const repo = yield* AlertRuleRepository
        yield* repo.create(rule(ruleId(15), "dora", { slugs: ["lido"], signing_key: "whsec_dora" }))
        const seen = yield* secondConnection(
          Effect.gen(function* () {
            const other = yield* AlertRuleRepository
            return {
              listed: (yield* other.list("dora")).map((r) => r.id),
              matched: (yield* other.matching({
                event: "rating.new",
                data: { entity_type: "vault", entity_slug: "lido" }
              })).map((r) => r.id),
              key: yield* other.signingKey(ruleId(15))
            }
          }),
          repository
        )
        assert.deepStrictEqual(seen.listed, [ruleId(15)])
        assert.include(seen.matched, ruleId(15))
        assert.strictEqual(seen.key, "whsec_dora")
      }).pipe(Effect.provide(repository))
    )

    it.effect(
      "the schema refuses what the domain would never store: unknown event kinds and entity types",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const insert = (events: string, types: string) =>
            Effect.exit(sql`
            INSERT INTO alert_rules (id, account_id, webhook_url, signing_key_sealed, created_at, events, entity_types)
            VALUES (gen_random_uuid(), 'x', 'https://e.example', 'v1:a:b:c', now(), ${events}::text[], ${types}::text[])
          `)
          assert.isTrue(Exit.isSuccess(yield* insert("{rating.new}", "{vault}")))
          assert.isTrue(Exit.isFailure(yield* insert("{webhook.test}", "{}")))
          assert.isTrue(Exit.isFailure(yield* insert("{}", "{vaults}")))
        })
    )

    it.effect(
      "rows are decoded with the domain's schemas: a stored rule that no longer fits is a defect carrying a StoreError, on every read",
      () =>
        Effect.gen(function* () {
          const repo = yield* AlertRuleRepository
          const sql = yield* SqlClient.SqlClient
          yield* repo.create(rule(ruleId(31), "carol"))
          yield* sql`UPDATE alert_rules SET slugs = ARRAY['Not A Slug'] WHERE id = ${ruleId(31)}`
          const ruleReads: ReadonlyArray<readonly [string, Effect.Effect<unknown, unknown>]> = [
            ["list", repo.list("carol")],
            ["get", repo.get("carol", ruleId(31))],
            [
              "matching",
              repo.matching({
                event: "rating.changed",
                data: { entity_type: "protocol", entity_slug: "Not A Slug" }
              })
            ],
            [
              "matchingEach",
              repo.matchingEach([
                { event: "rating.changed", data: { entity_type: "protocol", entity_slug: "Not A Slug" } }
              ])
            ]
          ]
          const decodeDefect = (what: string, exit: Exit.Exit<unknown, unknown>) => {
            assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause), `${what}: a defect`)
            const died = String(Cause.squash((exit as Exit.Failure<unknown, unknown>).cause))
            assert.include(died, "StoreError", what)
            assert.include(died, `alert rules, ${what}: a stored row does not decode`, what)
          }
          for (const [what, read] of ruleReads) decodeDefect(what, yield* Effect.exit(read))
          yield* sql`UPDATE alert_rules SET slugs = '{}', webhook_url = 'http://[not-an-address]/'
            WHERE id = ${ruleId(31)}`
          decodeDefect("destination", yield* Effect.exit(repo.destination(ruleId(31))))
          decodeDefect("destinations", yield* Effect.exit(repo.destinations([ruleId(31)])))
          yield* sql`UPDATE alert_rules SET webhook_url = 'https://hooks.example.com/ok' WHERE id = ${ruleId(31)}`
          assert.deepStrictEqual((yield* repo.get("carol", ruleId(31))).slugs, [])
        }).pipe(Effect.provide(repository))
    )
  })
})
