/**
 * The response cache across processes (docs/adr/0007-projection-cache.md).
 *
 * The guarantee under test (issue 7): once a publish (or any write) has
 * returned, no server process serves the state before it to a read that
 * begins afterwards. Each process checks its type's version in Postgres
 * before serving an entry, so this holds whatever the NOTIFY latency; the
 * notification only evicts early.
 *
 * - Two processes modelled in this one, each built from the production
 *   layers in its own memo map (own pool, own LISTEN connection, own cache):
 *   to Postgres they are two clients, as two OS processes are. In-process the
 *   test can wait for the notification, or withhold it entirely.
 * - Three real `ratings serve` child processes on one database, under
 *   concurrent load, read the moment each of 50 publishes (and renames)
 *   returns.
 */
import type { ChildProcess } from "node:child_process"
import { randomUUID } from "node:crypto"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { displayPrefix, generateApiKey, hashApiKey } from "@ratings/adapters-http/server/ApiKeyCrypto"
import { ResponseCache } from "@ratings/adapters-http/server/cache/ResponseCache"
import { freePort } from "@ratings/adapters-sql/EmbeddedPostgres"
import * as PgCacheInvalidation from "@ratings/adapters-sql/PgCacheInvalidation"
import { ApiKeyRepository } from "@ratings/domain/ports/ApiKeyRepository"
import { EntityRepository } from "@ratings/domain/ports/EntityRepository"
import { Publisher } from "@ratings/domain/services/Publisher"
import { type Context, Effect, Layer, ManagedRuntime, Option, PubSub, Redacted, Stream } from "effect"
import { formatIssues, importPath } from "@ratings/demo-data/ImportFiles"
import { responseCache } from "../src/Layers.ts"
import { exited, scratchDatabase, startCli, waitForOutput } from "./CliHarness.ts"
import { draftNextRating } from "./NextDraft.ts"
import { importedDatabase, processOf, serverKey as key, serverProcess } from "./ServerProcess.ts"
import { exampleWithDraft } from "./WebhookHarness.ts"

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

/** Lendwell's scorecards read twice from B: v2 on top, the second read a hit of B's cache. */
const cachedBeforePublish = (baseUrl: string, cacheB: ResponseCache["Service"]) =>
  Effect.gen(function* () {
    const before = yield* scorecardsAt(baseUrl)
    assert.strictEqual(before[0]!.scorecard_version, 2)
    const hitsBefore = (yield* cacheB.stats).hits
    assert.deepStrictEqual(yield* scorecardsAt(baseUrl), before)
    assert.strictEqual((yield* cacheB.stats).hits, hitsBefore + 1, "B serves the old figures from its cache")
    return before
  })

/** Lendwell's re-rating (its v3 draft) published through the Publisher of process A. */
const publishThrough = (a: Context.Context<Publisher>) =>
  Effect.flatMap(Effect.provideContext(Effect.service(Publisher), a), (p) =>
    p.publish({ entity_type: "protocol", slug: "lendwell", reasoning: "re-rated", actor: "test" })
  )

describe("response cache across processes", () => {
  it.live(
    "after a publish through the Publisher in one process, the next read in another server process returns the new figures",
    () =>
      Effect.gen(function* () {
        // Process A: imports the data, and later publishes.
        const { url, a } = yield* importedDatabase
        const lendwell = yield* Effect.flatMap(
          Effect.provideContext(Effect.service(EntityRepository), a),
          (entities) => entities.findBySlug("protocol", "lendwell")
        )
        const lendwellId = Option.getOrThrow(lendwell).id

        // Process B: the server, with the production response cache.
        const { cacheB, baseUrl } = yield* serverProcess(url, responseCache())
        const before = yield* cachedBeforePublish(baseUrl, cacheB)

        const applied = yield* cacheB.applied
        const published = yield* publishThrough(a)
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

describe("response cache across processes, strict", () => {
  it.live(
    "the first read after a publish returns in one process gets the new figures in another, even if that process never receives the notification",
    () =>
      Effect.gen(function* () {
        const { url, a } = yield* importedDatabase
        // Process B: the production layers and the production version source, but a change
        // stream that never delivers anything: an infinitely late NOTIFY.
        const silent = ResponseCache.layerInvalidatedBy(Effect.succeed(Stream.never), {
          versions: Effect.flatMap(PgCacheInvalidation.CacheInvalidation, (i) => i.versions)
        }).pipe(Layer.provide(PgCacheInvalidation.layer))
        const { cacheB, baseUrl } = yield* serverProcess(url, silent)
        yield* cachedBeforePublish(baseUrl, cacheB)

        const published = yield* publishThrough(a)
        const after = yield* scorecardsAt(baseUrl)
        assert.strictEqual(after[0]!.scorecard_version, 3)
        assert.strictEqual(after[0]!.composite_score, published.scorecard.composite_score)
        const stats = yield* cacheB.stats
        assert.strictEqual(stats.invalidated, 0, "no notification reached B")
        // And B caches the new figures: the next read is a hit again.
        assert.deepStrictEqual(yield* scorecardsAt(baseUrl), after)
        assert.strictEqual((yield* cacheB.stats).hits, stats.hits + 1)
      }),
    120_000
  )
})

// --- three real server processes -----------------------------------------------------------

const Servers = 3
const Rounds = 50
/** Background readers per server, so that every event loop is busy when a publish returns. */
const LoadPerServer = 3
/** Reads per server, route and caller class, one after the other, the moment a write returns. */
const ReadsAfterWrite = 3

interface Running {
  readonly name: string
  readonly base: string
  readonly child: ChildProcess
}

const startServer = async (name: string, url: string): Promise<Running> => {
  const port = await Effect.runPromise(freePort)
  const child = startCli(["serve", "--no-demo"], {
    PORT: String(port),
    HOST: "127.0.0.1",
    DATABASE_URL: url,
    RATINGS_SECRET_KEY: Redacted.value(key),
    RATINGS_DATA_DIR: mkdtempSync(join(tmpdir(), "ratings-cache-serve-")),
    RATINGS_LOAD_DEMO: "false",
    // Anonymous readers below each come from their own address, so that the per-address
    // rate limit (not under test here) refuses none of them.
    TRUST_PROXY: "1",
    REDIS_URL: undefined
  })
  await waitForOutput(child, /Listening on/, 90_000)
  // Keep reading the request log (nobody else does), so that a full pipe never stalls the server.
  child.stdout?.resume()
  child.stderr?.resume()
  return { name, base: `http://127.0.0.1:${port}`, child }
}

let address = 0
/** A new client address each time: 10.x.y.z. */
const nextAddress = () => {
  address++
  return `10.${(address >> 16) & 255}.${(address >> 8) & 255}.${address & 255}`
}

type Who = "anonymous" | "enterprise"

describe("response cache across three server processes", () => {
  it("three `ratings serve` processes under load on one database: the moment a publish (or a rename) returns, no process serves the state before it, for 50 publishes", async () => {
    const db = await scratchDatabase()
    const runtime = ManagedRuntime.make(processOf(db.url))
    const servers: Array<Running> = []
    let stopLoad = false
    const load: Array<Promise<void>> = []
    try {
      // The data, and an Enterprise key (the `full` projection class: the published history).
      const dir = mkdtempSync(join(tmpdir(), "ratings-cache-"))
      writeFileSync(join(dir, "example.json"), JSON.stringify(exampleWithDraft()))
      const imported = await runtime.runPromise(importPath(dir))
      if (imported._tag === "Rejected") assert.fail(formatIssues(imported.issues))
      const apiKey = generateApiKey()
      await runtime.runPromise(
        Effect.flatMap(Effect.service(ApiKeyRepository), (keys) =>
          keys.create({
            id: randomUUID(),
            name: "cache test",
            tier: "enterprise",
            account_id: randomUUID(),
            prefix: displayPrefix(apiKey),
            hash: hashApiKey(apiKey),
            created_at: new Date().toISOString()
          })
        )
      )
      const lendwell = Option.getOrThrow(
        await runtime.runPromise(
          Effect.flatMap(Effect.service(EntityRepository), (entities) =>
            entities.findBySlug("protocol", "lendwell")
          )
        )
      )

      servers.push(
        ...(await Promise.all(
          Array.from({ length: Servers }, (_, i) => startServer(`server ${i + 1}`, db.url))
        ))
      )

      const get = async <A>(server: Running, path: string, who: Who): Promise<A> => {
        const headers: Record<string, string> =
          who === "enterprise" ? { authorization: `Bearer ${apiKey}` } : { "x-forwarded-for": nextAddress() }
        const response = await fetch(`${server.base}/api/v1${path}`, { headers })
        const text = await response.text()
        if (response.status !== 200)
          throw new Error(`${server.name} ${who} ${path}: ${response.status} ${text}`)
        return JSON.parse(text) as A
      }
      const latestCard = async (server: Running, who: Who) =>
        (await get<{ items: ReadonlyArray<Card> }>(server, "/protocols/lendwell/scorecards", who)).items[0]!
      const detailName = async (server: Running, who: Who) =>
        (await get<{ name: string }>(server, `/protocols/${lendwell.id}`, who)).name
      const listedName = async (server: Running, who: Who) =>
        (
          await get<{ items: ReadonlyArray<{ id: string; name: string }> }>(server, "/protocols", who)
        ).items.find((e) => e.id === lendwell.id)?.name

      const violations: Array<string> = []
      let checkedReads = 0
      /** Every server and class at once, each read `ReadsAfterWrite` times in a row. */
      const everyServerAtOnce = (check: (server: Running, who: Who) => Promise<string | undefined>) =>
        Promise.all(
          servers.flatMap((server) =>
            (["anonymous", "enterprise"] as const).map(async (who) => {
              for (let i = 0; i < ReadsAfterWrite; i++) {
                const wrong = await check(server, who)
                checkedReads++
                if (wrong !== undefined) violations.push(`${server.name}, ${who}, read ${i + 1}: ${wrong}`)
              }
            })
          )
        )

      // Background readers: anonymous, on every cached route, each across the servers in turn.
      // A reader's reads follow each other, so what it sees must never go back either.
      for (let s = 0; s < servers.length; s++) {
        for (let r = 0; r < LoadPerServer; r++) {
          load.push(
            (async () => {
              let seen = 0
              for (let n = r; !stopLoad; n++) {
                const at = servers[(s + n) % servers.length]!
                const card = await latestCard(at, "anonymous")
                if (card.scorecard_version < seen)
                  violations.push(
                    `background reader at ${at.name}: v${card.scorecard_version} after v${seen}`
                  )
                seen = Math.max(seen, card.scorecard_version)
                await detailName(at, "anonymous")
                await listedName(at, "anonymous")
              }
            })()
          )
        }
      }

      const run = <A, E>(effect: Effect.Effect<A, E, Layer.Success<ReturnType<typeof processOf>>>) =>
        runtime.runPromise(effect)
      let published = 2
      for (let round = 1; round <= Rounds; round++) {
        // A rename: the detail and the list of every process must show it at once.
        const name = `Lendwell r${round}`
        await everyServerAtOnce(async (server, who) => {
          await detailName(server, who)
          await listedName(server, who)
          return undefined
        })
        await run(
          Effect.flatMap(Effect.service(EntityRepository), (entities) =>
            entities.upsert([
              {
                entity_type: "protocol",
                record: { ...lendwell, name },
                domain_weights: { security: 60, governance: 40 }
              }
            ])
          )
        )
        await everyServerAtOnce(async (server, who) => {
          const [detail, listed] = await Promise.all([detailName(server, who), listedName(server, who)])
          return detail === name && listed === name
            ? undefined
            : `after the rename to ${name}: detail ${detail}, list ${listed}`
        })

        // A re-rating, published: the import left a draft (v3) for the first round; later rounds
        // draft the next one, its first answer scored differently each round.
        if (round > 1) await run(draftNextRating("protocol", lendwell.id, round % 5))
        // Every cache holds the current figures right before the publish.
        await everyServerAtOnce(async (server, who) => {
          await latestCard(server, who)
          return undefined
        })
        const result = await run(
          Effect.flatMap(Effect.service(Publisher), (p) =>
            p.publish({
              entity_type: "protocol",
              slug: "lendwell",
              reasoning: `round ${round}`,
              actor: "test"
            })
          )
        )
        const card = result.scorecard
        assert.strictEqual(card.scorecard_version, published + 1)
        published = card.scorecard_version
        await everyServerAtOnce(async (server, who) => {
          const served = await latestCard(server, who)
          return served.scorecard_version === card.scorecard_version &&
            served.composite_score === card.composite_score
            ? undefined
            : `after publishing v${card.scorecard_version} (${card.composite_score}): v${served.scorecard_version} (${served.composite_score})`
        })
      }
      stopLoad = true
      await Promise.all(load)
      console.log(
        `${Rounds} publishes and ${Rounds} renames; ${checkedReads} reads checked the moment a write returned, ` +
          `${violations.length} showed the state before it`
      )
      assert.deepStrictEqual(violations.slice(0, 20), [], `${violations.length} stale responses`)
    } finally {
      stopLoad = true
      await Promise.allSettled(load)
      for (const server of servers) server.child.kill("SIGTERM")
      await Promise.all(servers.map((server) => exited(server.child)))
      await runtime.dispose()
      await db.drop()
    }
  }, 600_000)
})
