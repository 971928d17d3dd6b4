/**
 * Spec part 2 Identifiers rule 3 (and part 9 rule 4): slugs change when an
 * entity is renamed; id and external_ids survive, so integrations keyed on
 * them keep resolving, on both backends.
 */
import { assert, describe } from "@effect/vitest"
import type { EntityRecord } from "@ratings/domain/model/Entity"
import { EntityRepository } from "@ratings/domain/ports/EntityRepository"
import { Effect } from "effect"
import { entityId, Seed } from "./fixtures.ts"
import { onEachBackend, TestServer } from "./TestServer.ts"

onEachBackend((it) => {
  describe("rename", () => {
    it.effect(
      "after a rename the id and external_ids still resolve; the new slug resolves, the old one is gone",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const id = entityId("protocol", "alpha")
          const before = yield* server.get(`/api/v1/protocols/${id}`)
          assert.strictEqual(before.status, 200)
          const old = before.json as { slug: string; external_ids: Record<string, string> }
          const stored = Seed.entities.find((e) => e.record.id === id)!
          const entities = yield* EntityRepository
          yield* entities.upsert([
            {
              ...stored,
              record: { ...stored.record, slug: "alpha-renamed", name: "Alpha Renamed" } as EntityRecord
            }
          ])
          const byId = yield* server.get(`/api/v1/protocols/${id}`)
          assert.strictEqual(byId.status, 200)
          const renamed = byId.json as { id: string; slug: string; external_ids: Record<string, string> }
          assert.strictEqual(renamed.id, id)
          assert.strictEqual(renamed.slug, "alpha-renamed")
          assert.deepStrictEqual(renamed.external_ids, old.external_ids)
          assert.strictEqual((yield* server.get(`/api/v1/protocols/alpha-renamed`)).status, 200)
          assert.strictEqual((yield* server.get(`/api/v1/protocols/${id}/scorecards`)).status, 200)
          assert.strictEqual((yield* server.get(`/api/v1/protocols/${old.slug}`)).status, 404)
          const listed = (yield* server.get(`/api/v1/protocols?search=alpha-renamed`)).json as {
            items: ReadonlyArray<{ id: string; external_ids: Record<string, string> }>
          }
          assert.deepStrictEqual(
            listed.items.map((r) => [r.id, r.external_ids]),
            [[id, old.external_ids]]
          )
        })
    )
  })
})
