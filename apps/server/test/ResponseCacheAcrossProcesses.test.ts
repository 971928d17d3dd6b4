/**
 * The response cache across server processes (docs/adr/0007-projection-cache.md):
 * a publish through the Publisher in one process reaches the cache of a
 * server in another over Postgres LISTEN/NOTIFY, so that server's next read
 * returns the new figures although it held the old ones.
 *
 * The two processes are modelled in this one, each built from the production
 * layers in its own memo map: its own connection pool, its own LISTEN
 * connection, its own cache. To Postgres they are two clients, exactly as two
 * OS processes are; in-process, the test can wait for the server's cache to
 * have applied the notification (no sleep, no polling).
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { serve } from "@ratings/adapters-http/server/HttpServerLive"
import { ResponseCache } from "@ratings/adapters-http/server/ResponseCache"
import { freePort } from "@ratings/adapters-sql/EmbeddedPostgres"
import { EntityRepository } from "@ratings/domain/ports/EntityRepository"
import { Publisher } from "@ratings/domain/services/Publisher"
import { Context, Effect, Layer, Option, PubSub, Redacted } from "effect"
import { formatIssues, importPath } from "../src/ImportFiles.ts"
import { application, database, responseCache } from "../src/Layers.ts"
import { scratchDatabase } from "./CliHarness.ts"

const docPath = join(import.meta.dirname, "..", "..", "..", "docs", "import-format.md")

/** The documented import example, plus a third version of lendwell left as a draft, with lower scores. */
const exampleWithDraft = (): unknown => {
  const data = JSON.parse(
    /<!-- import-example:begin -->\s*```json\n([\s\S]*?)```/.exec(readFileSync(docPath, "utf8"))![1]!
  )
  const v3 = structuredClone(data.scorecards[1])
  v3.id = "7d3f0a4e-9a8b-4c1d-8e2f-3a4b5c6d7e8f"
  v3.scorecard_version = 3
  delete v3.composite_score
  v3.answers = v3.answers.map((a: { score: number | null }, i: number) => ({
    ...a,
    id: `7d3f0a4e-9a8b-4c1d-8e2f-3a4b5c6d7e${(90 + i).toString(16)}`,
    score: a.score === null ? null : 1
  }))
  data.scorecards.push(v3)
  return data
}

const key = Redacted.make(Buffer.alloc(32, 7).toString("base64"))

/** One process: the production layers over the database, built in a memo map of its own. */
const processOf = (url: string) => application(key).pipe(Layer.provideMerge(database(url)))

const buildAlone = <A, E>(layer: Layer.Layer<A, E>) =>
  Effect.flatMap(Effect.scope, (scope) => Layer.buildWithMemoMap(layer, Layer.makeMemoMapUnsafe(), scope))

interface Card {
  readonly scorecard_version: number
  readonly composite_score: number | null
}

const scorecardsAt = (baseUrl: string) =>
  Effect.promise(async () => {
    const response = await fetch(`${baseUrl}/api/v1/protocols/lendwell/scorecards`)
    assert.strictEqual(response.status, 200)
    return ((await response.json()) as { items: ReadonlyArray<Card> }).items
  })

describe("response cache across processes", () => {
  it.live(
    "after a publish through the Publisher in one process, the next read in another server process returns the new figures",
    () =>
      Effect.gen(function* () {
        const db = yield* Effect.acquireRelease(
          Effect.promise(() => scratchDatabase()),
          (d) => Effect.promise(() => d.drop())
        )
        const dir = mkdtempSync(join(tmpdir(), "ratings-cache-"))
        writeFileSync(join(dir, "example.json"), JSON.stringify(exampleWithDraft()))

        // Process A: imports the data, and later publishes.
        const a = yield* buildAlone(processOf(db.url))
        const imported = yield* importPath(dir).pipe(Effect.provideContext(a))
        if (imported._tag === "Rejected") return assert.fail(formatIssues(imported.issues))
        const lendwell = yield* Effect.flatMap(
          Effect.provideContext(Effect.service(EntityRepository), a),
          (entities) => entities.findBySlug("protocol", "lendwell")
        )
        const lendwellId = Option.getOrThrow(lendwell).id

        // Process B: the server, with the production response cache.
        const port = yield* freePort
        const b = yield* buildAlone(responseCache().pipe(Layer.provideMerge(processOf(db.url))))
        const cacheB = Context.get(b, ResponseCache)
        yield* buildAlone(
          serve({ port, host: "127.0.0.1", responseCache: Layer.succeed(ResponseCache, cacheB) }).pipe(
            Layer.provide(Layer.succeedContext(b))
          )
        )
        const baseUrl = `http://127.0.0.1:${port}`

        const before = yield* scorecardsAt(baseUrl)
        assert.strictEqual(before[0]!.scorecard_version, 2)
        const hitsBefore = (yield* cacheB.stats).hits
        assert.deepStrictEqual(yield* scorecardsAt(baseUrl), before)
        assert.strictEqual(
          (yield* cacheB.stats).hits,
          hitsBefore + 1,
          "B serves the old figures from its cache"
        )

        const applied = yield* cacheB.applied
        const published = yield* Effect.flatMap(Effect.provideContext(Effect.service(Publisher), a), (p) =>
          p.publish({ entity_type: "protocol", slug: "lendwell", reasoning: "re-rated", actor: "test" })
        )
        // B drops the entry when Postgres delivers the notification sent in A's publish transaction.
        let change = yield* PubSub.take(applied)
        while (change.entity_id !== lendwellId) change = yield* PubSub.take(applied)

        const after = yield* scorecardsAt(baseUrl)
        assert.strictEqual(after[0]!.scorecard_version, 3)
        assert.strictEqual(after[0]!.composite_score, published.scorecard.composite_score)
        assert.notStrictEqual(after[0]!.composite_score, before[0]!.composite_score)
      }),
    120_000
  )
})
