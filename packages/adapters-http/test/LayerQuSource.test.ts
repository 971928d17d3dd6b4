/**
 * The LayerQu source over a real local HTTP upstream (node:http on an
 * ephemeral port), driven through QuantumService over the Postgres snapshot
 * store and the Postgres chain directory, so each case shows the payload that
 * would be served, not only what the fetch returned (spec part 4 "Quantum
 * readiness" rules 1-4).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import { assert, describe, layer } from "@effect/vitest"
import * as PgEntityRepository from "@ratings/adapters-sql/PgEntityRepository"
import * as PgQuantumSnapshotStore from "@ratings/adapters-sql/PgQuantumSnapshotStore"
import type { EntityRecord } from "@ratings/domain/model/Entity"
import type { QuantumLeagueTable, QuantumUnavailable } from "@ratings/domain/model/Quantum"
import { ChainDirectory } from "@ratings/domain/ports/ChainDirectory"
import { EntityRepository } from "@ratings/domain/ports/EntityRepository"
import { QuantumSnapshotStore } from "@ratings/domain/ports/QuantumSnapshotStore"
import { QuantumSource } from "@ratings/domain/ports/QuantumSource"
import { MaxQuantumRows, matchRows, readRows } from "@ratings/domain/quantum/QuantumRows"
import { makeSnapshot } from "@ratings/domain/quantum/QuantumSnapshot"
import { QuantumService } from "@ratings/domain/services/QuantumService"
import { Context, type Duration, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import * as LayerQuSource from "../src/upstream/LayerQuSource.ts"
import { quantumRow } from "./fixtures.ts"
import { ScratchDatabase } from "./ScratchDatabase.ts"

type Handler = (request: IncomingMessage, response: ServerResponse) => void

/** The fake LayerQu: answers every request with the current handler, and remembers what it was asked. */
class Upstream extends Context.Service<
  Upstream,
  {
    readonly url: string
    readonly answer: (handler: Handler) => void
    readonly requests: () => ReadonlyArray<{ readonly method: string; readonly accept: string }>
  }
>()("@ratings/adapters-http/test/LayerQuUpstream") {
  static readonly layer = Layer.effect(
    Upstream,
    Effect.gen(function* () {
      let handler: Handler = (_req, res) => res.writeHead(404).end()
      const seen: Array<{ method: string; accept: string }> = []
      const open = new Set<ServerResponse>()
      const server = yield* Effect.acquireRelease(
        Effect.callback<Server>((resume) => {
          const s = createServer((req, res) => {
            seen.push({ method: req.method ?? "", accept: req.headers.accept ?? "" })
            open.add(res)
            res.on("close", () => open.delete(res))
            handler(req, res)
          })
          s.listen(0, "127.0.0.1", () => resume(Effect.succeed(s)))
        }),
        (s) =>
          Effect.callback<void>((resume) => {
            for (const res of open) res.destroy()
            s.closeAllConnections()
            s.close(() => resume(Effect.void))
          })
      )
      const address = server.address()
      if (address === null || typeof address === "string") return yield* Effect.die("upstream has no port")
      return Upstream.of({
        url: `http://127.0.0.1:${address.port}/api/readiness.json`,
        answer: (next) => {
          handler = next
        },
        requests: () => seen
      })
    })
  )
}

const json =
  (body: unknown, status = 200): Handler =>
  (_req, res) =>
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body))

const status =
  (code: number): Handler =>
  (_req, res) =>
    res.writeHead(code, { "content-type": "text/plain" }).end("upstream trouble")

/** Accepts the request and never answers. */
const never: Handler = () => {}

const row = (slug: string, name: string, extra: Record<string, unknown> = {}) =>
  quantumRow(slug, name, 25, extra)

const goodRows = [
  row("ethereum", "Ethereum"),
  row("solana", "Solana", { qri: 40, band: 3, stage: 1, danger: null }),
  row("arb1", "Arbitrum One", { profile: "L2" }),
  row("kaspa", "Kaspa")
]

const chainRecord = (
  n: number,
  slug: string,
  name: string,
  status: EntityRecord["status"]
): EntityRecord => ({
  id: `00000000-0000-4000-8000-00000000000${n}`,
  slug,
  name,
  status,
  categories: [],
  chains: [],
  urls: {},
  external_ids: {},
  description: null,
  is_active: true,
  is_private: false,
  created_at: "2026-08-01T00:00:00Z",
  updated_at: "2026-08-01T00:00:00Z"
})

/** Service chains in Postgres: one published, one draft (drafts count), one matched by name. */
const SeedChains = Layer.effectDiscard(
  Effect.flatMap(EntityRepository, (entities) =>
    entities.upsert([
      { entity_type: "chain", record: chainRecord(1, "ethereum", "Ethereum", "published") },
      { entity_type: "chain", record: chainRecord(2, "solana", "Solana", "draft") },
      { entity_type: "chain", record: chainRecord(3, "arbitrum-one", "Arbitrum One", "scoring") }
    ])
  )
)

/** QuantumService over the live source at the upstream's URL (or `path` on it). */
const over = (
  options: { readonly timeout?: Duration.Input; readonly maxBytes?: number; readonly url?: string } = {}
) =>
  Layer.unwrap(
    Effect.map(Upstream, (upstream) =>
      QuantumService.layerWith().pipe(
        Layer.provide(
          LayerQuSource.layer({
            url: options.url ?? upstream.url,
            timeout: options.timeout ?? "5 seconds",
            maxBytes: options.maxBytes
          })
        )
      )
    )
  )

/**
 * One scratch database for the file (seeded chains, the snapshot store) and
 * one upstream; QuantumService over the source at the upstream with a 5 s
 * budget, which a test replaces by providing `over(...)` itself.
 */
const Suite = over().pipe(
  Layer.provideMerge(Layer.mergeAll(ChainDirectory.layerEntities, Upstream.layer)),
  Layer.provideMerge(
    SeedChains.pipe(
      Layer.provideMerge(Layer.mergeAll(PgQuantumSnapshotStore.layer, PgEntityRepository.layer)),
      Layer.provideMerge(ScratchDatabase)
    )
  )
)

/** Every test starts from an empty store. */
const emptyStore = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`DELETE FROM quantum_snapshots`
  yield* sql`DELETE FROM quantum_refresh_outcomes`
})

const Day = 24 * 60 * 60 * 1000

/** Stores a snapshot of the good rows fetched `ageMillis` ago, as an earlier refresh would have. */
const storePrevious = (ageMillis: number) =>
  Effect.gen(function* () {
    const chains = yield* (yield* ChainDirectory).all
    const read = readRows(goodRows)
    const snapshot = makeSnapshot(
      { rows: matchRows(read.rows, chains), rows_skipped: 0 },
      { now: Date.now() - ageMillis, ttlMillis: Day }
    )
    yield* (yield* QuantumSnapshotStore).save(snapshot)
    return snapshot
  })

const refreshAndRead = Effect.gen(function* () {
  const service = yield* QuantumService
  const result = yield* service.refresh
  const table = yield* service.leagueTable
  return { result, table }
})

/**
 * Runs `effect` while a timer asks for a turn of the event loop every 10 ms;
 * the longest stretch between two turns is the longest any request (a /health
 * probe among them) would have waited on this process meanwhile. A stretch is
 * measured in the CPU time of this thread (the event loop's), not on the wall
 * clock: the thread's own work between two turns is what blocks the loop,
 * while the time a loaded machine (other test workers, other processes) keeps
 * the thread off a core would count on the wall clock whatever the code did.
 */
const withLongestStall = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const cpuNow = () => {
      const { user, system } = process.threadCpuUsage()
      return (user + system) / 1_000
    }
    let last = cpuNow()
    let longest = 0
    const timer = setInterval(() => {
      const now = cpuNow()
      longest = Math.max(longest, now - last)
      last = now
    }, 10)
    const result = yield* effect.pipe(Effect.ensuring(Effect.sync(() => clearInterval(timer))))
    return { result, stallMillis: Math.round(Math.max(longest, cpuNow() - last)) }
  })

/** The unbounded parse held the loop for well over a second of CPU. */
const StallBudgetMillis = 400

/*
 * The upstream runs on the thread under measurement, so the stall tests' handlers
 * encode their body once, before the measured window, and only hand out slices of
 * it: serialising 16 MB in the handler would count as a stall of the code under test.
 */

/** Writes `body` in 64 KiB chunks without a Content-Length, as a stream of unknown length. */
const streamed = (body: string): Handler => {
  const bytes = Buffer.from(body)
  return (_req, res) => {
    res.writeHead(200, { "content-type": "application/json" })
    for (let i = 0; i < bytes.length; i += 65536) res.write(bytes.subarray(i, i + 65536))
    res.end()
  }
}

/** Answers `body` whole, with its Content-Length declared. */
const whole = (body: string): Handler => {
  const bytes = Buffer.from(body)
  return (_req, res) =>
    res.writeHead(200, { "content-type": "application/json", "content-length": bytes.length }).end(bytes)
}

const assertAvailable: (
  table: QuantumLeagueTable | QuantumUnavailable
) => asserts table is QuantumLeagueTable = (table) => assert.isTrue(table.available, JSON.stringify(table))

const assertUnreachable = (table: QuantumLeagueTable | QuantumUnavailable) => {
  assert.isFalse(table.available)
  assert.strictEqual(!table.available && table.reason, "source unreachable")
  assert.strictEqual(table.source, "LayerQu")
}

layer(Suite, { excludeTestServices: true })("LayerQuSource", (it) => {
  describe("an upstream that answers well", () => {
    it.effect(
      "rows are matched to service chain slugs (drafts count), as_of is the fetch time, rows_skipped is 0",
      () =>
        Effect.gen(function* () {
          yield* emptyStore
          const upstream = yield* Upstream
          upstream.answer(json(goodRows))
          const before = Date.now()
          const { result, table } = yield* refreshAndRead
          assert.isTrue(result.outcome.ok, result.outcome.error)
          assertAvailable(table)
          assert.deepStrictEqual(
            table.rows.map((r) => [r.slug, r.matched_chain_slug]),
            [
              ["ethereum", "ethereum"],
              ["solana", "solana"],
              ["arb1", "arbitrum-one"],
              ["kaspa", null]
            ]
          )
          assert.strictEqual(table.rows_skipped, 0)
          assert.strictEqual(table.as_of, result.snapshot?.as_of)
          const asOf = Date.parse(table.as_of)
          assert.isTrue(asOf >= before && asOf <= Date.now(), `as_of ${table.as_of} is the fetch time`)
          assert.isFalse("stale" in table)
          assert.include(table.attribution, "LayerQu")
          assert.notInclude(table.attribution, "Sample data", "a live fetch is not the sample")

          const draft = yield* (yield* QuantumService).chain("solana")
          assert.isTrue(draft.available && draft.qri === 40 && draft.danger === null)
          assert.deepStrictEqual(upstream.requests().at(-1), { method: "GET", accept: "application/json" })
        })
    )

    it.effect("an object envelope with a rows, data or chains array is read like a bare array", () =>
      Effect.gen(function* () {
        const upstream = yield* Upstream
        for (const key of LayerQuSource.RowEnvelopeKeys) {
          yield* emptyStore
          upstream.answer(json({ updated: "2026-08-01", [key]: goodRows }))
          const { result, table } = yield* refreshAndRead
          assert.isTrue(result.outcome.ok, `${key}: ${result.outcome.error}`)
          assertAvailable(table)
          assert.strictEqual(table.rows.length, goodRows.length, key)
        }
      })
    )
  })

  describe("an upstream that answers 500", () => {
    it.effect(
      "nothing stored before: the refresh fails naming the status; available: false, source unreachable",
      () =>
        Effect.gen(function* () {
          yield* emptyStore
          ;(yield* Upstream).answer(status(500))
          const { result, table } = yield* refreshAndRead
          assert.isFalse(result.outcome.ok)
          assert.include(result.outcome.error ?? "", "HTTP 500")
          assertUnreachable(table)
          const chain = yield* (yield* QuantumService).chain("ethereum")
          assert.strictEqual(!chain.available && chain.reason, "source unreachable")
          const recorded = yield* (yield* QuantumSnapshotStore).lastOutcome
          assert.deepStrictEqual(recorded, Option.some(result.outcome))
        })
    )

    it.effect("a previous snapshot that has expired is served with stale: true", () =>
      Effect.gen(function* () {
        yield* emptyStore
        const previous = yield* storePrevious(25 * 60 * 60 * 1000)
        ;(yield* Upstream).answer(status(500))
        const { result, table } = yield* refreshAndRead
        assert.isFalse(result.outcome.ok)
        assertAvailable(table)
        assert.strictEqual(table.stale, true)
        assert.strictEqual(table.as_of, previous.as_of, "the last snapshot is served")
        assert.strictEqual(table.rows.length, goodRows.length)
        const chain = yield* (yield* QuantumService).chain("ethereum")
        assert.isTrue(chain.available && chain.stale === true)
      })
    )

    it.effect("a previous snapshot that is still fresh is served without stale", () =>
      Effect.gen(function* () {
        yield* emptyStore
        const previous = yield* storePrevious(60 * 60 * 1000)
        ;(yield* Upstream).answer(status(503))
        const { result, table } = yield* refreshAndRead
        assert.isFalse(result.outcome.ok)
        assertAvailable(table)
        assert.isFalse("stale" in table)
        assert.strictEqual(table.as_of, previous.as_of)
      })
    )
  })

  describe("an upstream that answers garbage", () => {
    it.effect("malformed rows are skipped and counted in rows_skipped; the good ones are served", () =>
      Effect.gen(function* () {
        yield* emptyStore
        const garbage = [null, "ethereum", 42, { slug: "x" }, row("bad-band", "Bad", { band: 9 }), []]
        ;(yield* Upstream).answer(json([...goodRows.slice(0, 2), ...garbage, ...goodRows.slice(2)]))
        const { result, table } = yield* refreshAndRead
        assert.isTrue(result.outcome.ok, result.outcome.error)
        assertAvailable(table)
        assert.strictEqual(table.rows_skipped, garbage.length)
        assert.deepStrictEqual(
          table.rows.map((r) => r.slug),
          goodRows.map((r) => r.slug)
        )
      })
    )

    it.effect("all rows garbage: the refresh fails and the previous snapshot stays", () =>
      Effect.gen(function* () {
        yield* emptyStore
        const upstream = yield* Upstream
        upstream.answer(json(goodRows))
        const { table: first } = yield* refreshAndRead
        assertAvailable(first)
        upstream.answer(json([{ slug: 1 }, null, { name: "no slug" }]))
        const { result, table } = yield* refreshAndRead
        assert.isFalse(result.outcome.ok)
        assert.include(result.outcome.error ?? "", "no readable rows (3 skipped)")
        assertAvailable(table)
        assert.strictEqual(table.as_of, first.as_of, "the previous snapshot is kept")
        assert.strictEqual(table.rows_skipped, 0)
        assert.strictEqual(table.rows.length, goodRows.length)
        assert.isFalse("stale" in table, "it has not expired")
      })
    )

    it.effect("a body that is not JSON (or not UTF-8) fails the refresh; the previous snapshot stays", () =>
      Effect.gen(function* () {
        yield* emptyStore
        const previous = yield* storePrevious(25 * 60 * 60 * 1000)
        ;(yield* Upstream).answer((_req, res) =>
          res.writeHead(200, { "content-type": "text/html" }).end("<html>maintenance</html>")
        )
        const { result, table } = yield* refreshAndRead
        assert.isFalse(result.outcome.ok)
        assert.include(result.outcome.error ?? "", "not JSON")
        assertAvailable(table)
        assert.strictEqual(table.as_of, previous.as_of)
        assert.strictEqual(table.stale, true)

        ;(yield* Upstream).answer((_req, res) =>
          res
            .writeHead(200, { "content-type": "application/json" })
            .end(Buffer.from([0x5b, 0xff, 0xfe, 0x5d]))
        )
        const latin = yield* refreshAndRead
        assert.include(latin.result.outcome.error ?? "", "not UTF-8")
        assert.isTrue(latin.table.available && latin.table.as_of === previous.as_of)
      })
    )

    it.effect("JSON that is not a dataset (no rows array) fails the refresh", () =>
      Effect.gen(function* () {
        const upstream = yield* Upstream
        const cases: ReadonlyArray<readonly [unknown, string]> = [
          [{ error: "rate limited" }, "without a"],
          [{ rows: { ethereum: 1 } }, `"rows" member is not an array`],
          [{ data: null }, `"data" member is not an array`],
          [42, "a number"],
          [null, "null"],
          ["rows", "a string"]
        ]
        for (const [body, expected] of cases) {
          yield* emptyStore
          upstream.answer(json(body))
          const { result, table } = yield* refreshAndRead
          assert.isFalse(result.outcome.ok, JSON.stringify(body))
          assert.include(result.outcome.error ?? "", "not a dataset")
          assert.include(result.outcome.error ?? "", expected)
          assertUnreachable(table)
        }
      })
    )
  })

  describe("an upstream that answers too much", () => {
    it.effect("a body larger than maxBytes fails the refresh, declared or streamed without a length", () =>
      Effect.gen(function* () {
        const upstream = yield* Upstream
        const big = JSON.stringify(Array.from({ length: 200 }, (_, i) => row(`chain-${i}`, `Chain ${i}`)))
        assert.isAbove(big.length, 4096)
        const declared: Handler = (_req, res) =>
          res.writeHead(200, { "content-type": "application/json" }).end(big)
        const streamed: Handler = (_req, res) => {
          res.writeHead(200, { "content-type": "application/json" })
          for (let i = 0; i < big.length; i += 1000) res.write(big.slice(i, i + 1000))
          res.end()
        }
        for (const [name, handler] of [
          ["declared", declared],
          ["streamed", streamed]
        ] as const) {
          yield* emptyStore
          upstream.answer(handler)
          const { result, table } = yield* Effect.provide(refreshAndRead, over({ maxBytes: 4096 }))
          assert.isFalse(result.outcome.ok, name)
          assert.include(result.outcome.error ?? "", "4096-byte limit", name)
          assertUnreachable(table)
        }
        // the same body within a larger limit is read
        yield* emptyStore
        upstream.answer(declared)
        const { result } = yield* Effect.provide(refreshAndRead, over({ maxBytes: big.length }))
        assert.isTrue(result.outcome.ok, result.outcome.error)
      })
    )
  })

  describe("a hostile upstream: too many rows, too deep, too big", () => {
    it.effect(
      "110,000 valid rows (16 MB) are refused by the 2 MiB default limit; the previous snapshot is still served, the event loop never stalls",
      () =>
        Effect.gen(function* () {
          yield* emptyStore
          const previous = yield* storePrevious(60 * 60 * 1000)
          const huge = JSON.stringify(
            Array.from({ length: 110_000 }, (_, i) => row(`chain-${i}`, `Chain ${i}`))
          )
          assert.isAbove(huge.length, 15_000_000)
          const upstream = yield* Upstream
          for (const [name, handler] of [
            ["declared", whole(huge)],
            ["streamed", streamed(huge)]
          ] as const) {
            upstream.answer(handler)
            const { result, stallMillis } = yield* withLongestStall(refreshAndRead)
            assert.isFalse(result.result.outcome.ok, name)
            assertAvailable(result.table)
            assert.strictEqual(result.table.as_of, previous.as_of, `${name}: the previous snapshot is served`)
            assert.strictEqual(result.table.rows.length, goodRows.length, name)
            assert.isBelow(
              stallMillis,
              StallBudgetMillis,
              `${name}: the event loop stalled ${stallMillis} ms`
            )
            assert.include(
              result.result.outcome.error ?? "",
              `${LayerQuSource.DefaultMaxBytes}-byte limit`,
              name
            )
          }
        })
    )

    it.effect(
      "more than MaxQuantumRows rows within the byte limit are refused whole, naming the count; the previous snapshot is served",
      () =>
        Effect.gen(function* () {
          yield* emptyStore
          const previous = yield* storePrevious(60 * 60 * 1000)
          const tiny = (i: number) => ({ slug: `c${i}`, name: `C${i}`, profile: "L1", hybrid: "FAIL" })
          const body = Array.from({ length: MaxQuantumRows + 1 }, (_, i) => tiny(i))
          assert.isBelow(JSON.stringify(body).length, LayerQuSource.DefaultMaxBytes)
          ;(yield* Upstream).answer(json({ rows: body }))
          const { result, table } = yield* refreshAndRead
          assert.isFalse(result.outcome.ok)
          assert.include(
            result.outcome.error ?? "",
            `the dataset has ${MaxQuantumRows + 1} rows, more than the ${MaxQuantumRows} accepted`
          )
          assertAvailable(table)
          assert.strictEqual(table.as_of, previous.as_of)
          assert.strictEqual(table.rows.length, goodRows.length)
        })
    )

    it.effect(
      "10 MB of nested arrays are refused without stalling the event loop; the previous snapshot is served",
      () =>
        Effect.gen(function* () {
          yield* emptyStore
          const previous = yield* storePrevious(60 * 60 * 1000)
          const half = 5 * 1024 * 1024
          const nested = "[".repeat(half) + "]".repeat(half)
          ;(yield* Upstream).answer(streamed(nested))
          const { result, stallMillis } = yield* withLongestStall(refreshAndRead)
          assert.isFalse(result.result.outcome.ok)
          assertAvailable(result.table)
          assert.strictEqual(result.table.as_of, previous.as_of)
          assert.isBelow(stallMillis, StallBudgetMillis, `the event loop stalled ${stallMillis} ms`)
        })
    )

    it.effect(
      "a body within the byte limit that nests deeper than MaxNestingDepth is refused before it is parsed; nesting up to it is read",
      () =>
        Effect.gen(function* () {
          yield* emptyStore
          const upstream = yield* Upstream
          const nestedIn = (levels: number) => {
            let value: unknown = "x"
            for (let i = 0; i < levels; i++) value = [value]
            return value
          }
          // the envelope, the rows array and a row are 3 levels; a row's extra field holds the rest
          const withDepth = (depth: number) => ({
            rows: [...goodRows, { ...goodRows[0], slug: "deep", extra: nestedIn(depth - 3) }]
          })
          upstream.answer(json(withDepth(LayerQuSource.MaxNestingDepth)))
          const ok = yield* refreshAndRead
          assert.isTrue(ok.result.outcome.ok, ok.result.outcome.error)
          assertAvailable(ok.table)
          assert.strictEqual(ok.table.rows.length, goodRows.length + 1)

          const brackets = "[".repeat(300_000) + "]".repeat(300_000)
          for (const body of [JSON.stringify(withDepth(LayerQuSource.MaxNestingDepth + 1)), brackets]) {
            upstream.answer((_req, res) =>
              res.writeHead(200, { "content-type": "application/json" }).end(body)
            )
            const { result, table } = yield* refreshAndRead
            assert.isFalse(result.outcome.ok)
            assert.include(
              result.outcome.error ?? "",
              `body nests arrays or objects deeper than ${LayerQuSource.MaxNestingDepth} levels`
            )
            assertAvailable(table)
            assert.strictEqual(table.as_of, ok.table.as_of, "the previous snapshot is served")
          }
          // brackets inside strings are text, not nesting
          upstream.answer(json([{ ...goodRows[0], name: '[[[[[[[[[[[[[[[[[[[[{{{{{{{{{{{{{{{{{{{\\"[[' }]))
          const text = yield* refreshAndRead
          assert.isTrue(text.result.outcome.ok, text.result.outcome.error)
        })
    )
  })

  describe("an upstream that never answers", () => {
    it.effect(
      "with a 300 ms timeout the refresh fails promptly: nothing stored gives available: false; an expired snapshot is served stale",
      () =>
        Effect.gen(function* () {
          yield* emptyStore
          const upstream = yield* Upstream
          upstream.answer(never)
          const quick = over({ timeout: "300 millis" })
          let started = Date.now()
          const { result, table } = yield* Effect.provide(refreshAndRead, quick)
          let elapsed = Date.now() - started
          assert.isFalse(result.outcome.ok)
          assert.include(result.outcome.error ?? "", "no complete answer within")
          assert.isAtLeast(elapsed, 250)
          assert.isBelow(elapsed, 3000, `gave up after ${elapsed} ms`)
          assertUnreachable(table)

          const previous = yield* storePrevious(25 * 60 * 60 * 1000)
          // headers at once, then a body that never ends: the budget covers the whole exchange
          upstream.answer((_req, res) => {
            res.writeHead(200, { "content-type": "application/json" })
            res.write("[")
          })
          started = Date.now()
          const again = yield* Effect.provide(refreshAndRead, quick)
          elapsed = Date.now() - started
          assert.isFalse(again.result.outcome.ok)
          assert.isBelow(elapsed, 3000, `gave up after ${elapsed} ms`)
          assertAvailable(again.table)
          assert.strictEqual(again.table.stale, true)
          assert.strictEqual(again.table.as_of, previous.as_of)
        })
    )
  })

  describe("what is not followed or not reachable", () => {
    it.effect("a redirect, even to the same host, is not followed: the refresh fails naming the status", () =>
      Effect.gen(function* () {
        yield* emptyStore
        const upstream = yield* Upstream
        upstream.answer((req, res) => {
          if (req.url === "/moved.json") return json(goodRows)(req, res)
          res.writeHead(302, { location: "/moved.json" }).end()
        })
        const requestsBefore = upstream.requests().length
        const { result, table } = yield* refreshAndRead
        assert.isFalse(result.outcome.ok)
        assert.include(result.outcome.error ?? "", "HTTP 302")
        assert.include(result.outcome.error ?? "", "redirects are not followed")
        assert.strictEqual(upstream.requests().length, requestsBefore + 1, "the target was never asked")
        assertUnreachable(table)
      })
    )

    it.effect("a refused connection fails the refresh as unreachable", () =>
      Effect.gen(function* () {
        yield* emptyStore
        // a port that was just free: nothing listens there
        const closed = yield* Effect.callback<number>((resume) => {
          const s = createServer()
          s.listen(0, "127.0.0.1", () => {
            const address = s.address()
            s.close(() =>
              resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0))
            )
          })
        })
        const { result, table } = yield* Effect.provide(
          refreshAndRead,
          over({ url: `http://127.0.0.1:${closed}/readiness.json` })
        )
        assert.isFalse(result.outcome.ok)
        assert.include(result.outcome.error ?? "", "unreachable")
        assertUnreachable(table)
      })
    )

    it.effect("error messages never carry the URL's query string or credentials", () =>
      Effect.gen(function* () {
        yield* emptyStore
        const upstream = yield* Upstream
        upstream.answer(status(401))
        const url = new URL(upstream.url)
        url.username = "reader"
        url.password = "hunter2"
        url.search = "?api_key=s3cr3t-token"
        const { result } = yield* Effect.provide(refreshAndRead, over({ url: url.href }))
        assert.isFalse(result.outcome.ok)
        assert.include(result.outcome.error ?? "", "HTTP 401")
        assert.include(result.outcome.error ?? "", `${url.origin}${url.pathname}`)
        assert.notInclude(result.outcome.error ?? "", "s3cr3t-token")
        assert.notInclude(result.outcome.error ?? "", "hunter2")
      })
    )

    it.effect("a URL that is not http or https is refused when the layer is built", () =>
      Effect.gen(function* () {
        const exit = yield* Effect.exit(
          Effect.provide(
            Effect.gen(function* () {
              return yield* QuantumSource
            }),
            LayerQuSource.layer({ url: "file:///etc/passwd" })
          )
        )
        assert.isTrue(exit._tag === "Failure")
        assert.include(String(exit._tag === "Failure" && exit.cause), "must be http or https")
      })
    )
  })

  describe("no upstream configured", () => {
    it.effect(
      "the source fails every fetch saying what to set; nothing is stored, the table is unavailable",
      () =>
        Effect.gen(function* () {
          yield* emptyStore
          const { result, table } = yield* Effect.provide(
            refreshAndRead,
            QuantumService.layerWith().pipe(
              Layer.provide(LayerQuSource.layerNotConfigured("RATINGS_QUANTUM_SOURCE_URL"))
            )
          )
          assert.isFalse(result.outcome.ok)
          assert.include(
            result.outcome.error ?? "",
            "no upstream URL configured (RATINGS_QUANTUM_SOURCE_URL)"
          )
          assertUnreachable(table)
        })
    )
  })
})
