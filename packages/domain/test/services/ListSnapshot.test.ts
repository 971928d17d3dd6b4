/**
 * pageOfSnapshot's search over the snapshot's search text: a match lies
 * within one field (name, slug or symbol), never across two, and a search
 * holding the NUL that separates them reads every record's fields one by
 * one. Its agreement with the Postgres adapter on generated data is
 * adapters-http/test/ListPages.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Caller } from "../../src/model/Caller.ts"
import { EntityRepositoryMemory } from "../../src/ports/memory/EntityRepositoryMemory.ts"
import { RubricRepositoryMemory } from "../../src/ports/memory/RubricRepositoryMemory.ts"
import { ScorecardRepositoryMemory } from "../../src/ports/memory/ScorecardRepositoryMemory.ts"
import { type ListRequest, pageOfSnapshot, RatingsReader } from "../../src/services/RatingsReader.ts"
import { entity } from "./fixtures.ts"

const layer = RatingsReader.layer.pipe(
  Layer.provide(
    Layer.mergeAll(
      EntityRepositoryMemory.layer([
        entity("token", "kappa", { name: "Alpha Ab", symbol: "CD" }),
        entity("token", "omega", { name: "Ab\u0000kappa", symbol: "X" }),
        entity("token", "zeta", { name: "Zeta", symbol: "ABCD" })
      ]),
      ScorecardRepositoryMemory.layer({ scorecards: [], history: [] }),
      RubricRepositoryMemory.layer([])
    )
  )
)

const search = (text: string): ListRequest => ({
  entity_type: "token",
  search: text,
  categories: [],
  skip: 0,
  limit: 50
})

describe("list snapshot search", () => {
  it.effect("matches within a field, never across the name, slug and symbol, in list order", () =>
    Effect.gen(function* () {
      const snapshot = yield* (yield* RatingsReader).listSnapshot(Caller.anonymous("192.0.2.1"), "token", 100)
      const slugs = (text: string) =>
        pageOfSnapshot(snapshot, search(text)).positions.map((p) => snapshot.keys[p]!.slug)
      assert.deepStrictEqual(slugs("ab"), ["kappa", "omega", "zeta"])
      assert.deepStrictEqual(slugs("cd"), ["kappa", "zeta"])
      assert.deepStrictEqual(slugs("kappa"), ["kappa", "omega"])
      // "ab" ends kappa's name and "cd" is its symbol; "kappacd" straddles its slug and symbol.
      assert.deepStrictEqual(slugs("abkappa"), [])
      assert.deepStrictEqual(slugs("kappacd"), [])
      // A NUL is matched field by field: omega's name holds one, no record's fields join across one.
      assert.deepStrictEqual(slugs("ab\u0000kappa"), ["omega"])
      assert.deepStrictEqual(slugs("ab\u0000cd"), [])
      assert.strictEqual(pageOfSnapshot(snapshot, search("a")).total, 3)
    }).pipe(Effect.provide(layer))
  )
})
