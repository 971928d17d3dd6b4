/**
 * The quantum-readiness routes over the real server, on both backends (spec
 * part 4 "Quantum readiness" rules 1-4, part 7; api-facts "Quantum
 * readiness"). The upstream is the domain's scripted source here; the real
 * undici source has its own tests against a real HTTP upstream
 * (LayerQuSource.test.ts). Refreshes run through QuantumService over the
 * server's own stores, so the routes serve exactly what a refresh saved.
 *
 * The tests of a backend share one server and run in order: each arranges the
 * snapshot state it needs (none, fresh, expired after a failed refresh).
 */
import { assert, describe } from "@effect/vitest"
import { isoTimestamp } from "@ratings/domain/model/Primitives"
import { QuantumSnapshotStore } from "@ratings/domain/ports/QuantumSnapshotStore"
import { MaxQuantumRows, MaxQuantumTextLength } from "@ratings/domain/quantum/QuantumRows"
import { makeSnapshot } from "@ratings/domain/quantum/QuantumSnapshot"
import { QuantumService } from "@ratings/domain/services/QuantumService"
import { Effect } from "effect"
import { type CallerName, quantumRow, slugOf } from "./fixtures.ts"
import { onEachBackend, type ServerIt, TestServer } from "./TestServer.ts"
import { QuantumSourceMemory } from "@ratings/domain/ports/memory/QuantumSourceMemory"

// biome-ignore lint/suspicious/noExplicitAny: response bodies are probed field by field in assertions
type Json = { readonly [key: string]: any }

const get = (path: string, caller?: CallerName) =>
  Effect.gen(function* () {
    return yield* (yield* TestServer).get(`/api/v1${path}`, { caller })
  })

const row = quantumRow

/** 75 chains as the source lists them: service chains (a draft among them), many others, two malformed rows. */
const upstreamRows: ReadonlyArray<unknown> = [
  row(slugOf("chain", "alpha"), "Chain Alpha", 25),
  row("gamma-mainnet", "Chain Gamma", 40, { danger: null }),
  row(slugOf("chain", "draft"), "Chain Draft", 18),
  row(slugOf("chain", "beta"), "Chain Beta", null),
  ...Array.from({ length: 71 }, (_, i) => row(`other-chain-${i}`, `Other Chain ${i}`, 10 + (i % 80))),
  { slug: "broken", name: "Broken", qri: "high" },
  "not a row"
]

const refresh = Effect.gen(function* () {
  const quantum = yield* QuantumService
  return yield* quantum.refresh
}).pipe(Effect.provide(QuantumService.layer))

const attributed = (body: Json) => {
  assert.strictEqual(body.source, "LayerQu")
  assert.strictEqual(body.source_url, "https://layerqu.com/dashboard/")
  assert.include(body.attribution, "LayerQu")
}

const quantumRoutes = (it: ServerIt) =>
  describe("spec part 4 Quantum readiness", () => {
    it.effect("rule 3: with nothing to serve, available is false with a reason (200), attributed", () =>
      Effect.gen(function* () {
        const table = yield* get("/quantum-readiness")
        assert.strictEqual(table.status, 200)
        const body = table.json as Json
        assert.strictEqual(body.available, false)
        assert.strictEqual(body.reason, "source unreachable")
        attributed(body)
        const chain = (yield* get(`/chains/${slugOf("chain", "alpha")}/quantum-readiness`)).json as Json
        assert.strictEqual(chain.available, false)
        assert.strictEqual(chain.reason, "source unreachable")
        attributed(chain)
      })
    )

    it.effect("the league table lists 70+ chains with the api-facts fields, as_of and rows_skipped", () =>
      Effect.gen(function* () {
        const script = yield* QuantumSourceMemory
        yield* script.respond(upstreamRows)
        const outcome = yield* refresh
        assert.isTrue(outcome.outcome.ok)
        const r = yield* get("/quantum-readiness")
        assert.strictEqual(r.status, 200)
        const body = r.json as Json
        assert.strictEqual(body.available, true)
        assert.isAtLeast(body.rows.length, 70)
        assert.strictEqual(body.rows_skipped, 2)
        assert.strictEqual(body.as_of, outcome.snapshot!.as_of)
        assert.notProperty(body, "stale")
        attributed(body)
        const first = body.rows.find((x: Json) => x.slug === slugOf("chain", "alpha"))
        for (const field of [
          "slug",
          "name",
          "profile",
          "qri",
          "band",
          "band_label",
          "stage",
          "hybrid",
          "danger",
          "ci",
          "matched_chain_slug"
        ]) {
          assert.property(first, field)
        }
      })
    )

    it.effect(
      "rule 1: matched_chain_slug is the service chain slug when the chain exists (drafts included), else null",
      () =>
        Effect.gen(function* () {
          const rows = ((yield* get("/quantum-readiness")).json as Json).rows as ReadonlyArray<Json>
          const matched = (slug: string) => rows.find((x) => x.slug === slug)?.matched_chain_slug
          assert.strictEqual(matched(slugOf("chain", "alpha")), slugOf("chain", "alpha"))
          assert.strictEqual(matched(slugOf("chain", "draft")), slugOf("chain", "draft"))
          assert.strictEqual(matched("gamma-mainnet"), slugOf("chain", "gamma"), "matched by name")
          assert.isNull(matched("other-chain-3"))
        })
    )

    it.effect("one chain by service chain slug carries the reading, as_of and attribution", () =>
      Effect.gen(function* () {
        const r = yield* get(`/chains/${slugOf("chain", "alpha")}/quantum-readiness`)
        assert.strictEqual(r.status, 200)
        const body = r.json as Json
        assert.strictEqual(body.available, true)
        assert.strictEqual(body.chain_slug, slugOf("chain", "alpha"))
        assert.strictEqual(body.qri, 25)
        assert.strictEqual(body.band, 2)
        assert.strictEqual(body.stage, 2)
        assert.isString(body.as_of)
        attributed(body)
        const draft = (yield* get(`/chains/${slugOf("chain", "draft")}/quantum-readiness`)).json as Json
        assert.strictEqual(draft.available, true, "a draft chain counts")
        const gamma = (yield* get(`/chains/${slugOf("chain", "gamma")}/quantum-readiness`)).json as Json
        assert.isNull(gamma.danger, "danger may be null")
      })
    )

    it.effect(
      "rule 2: unknown chains and chains the source has not assessed are 200 with available false",
      () =>
        Effect.gen(function* () {
          const cases: ReadonlyArray<readonly [string, string]> = [
            [slugOf("chain", "beta"), "not assessed by source"],
            // An inactive chain is hidden from the public, so it answers like an unknown one (ADR 0003).
            [slugOf("chain", "retired"), "unknown chain"],
            ["no-such-chain", "unknown chain"],
            ["NOT%20A%20SLUG", "unknown chain"]
          ]
          for (const [slug, reason] of cases) {
            const r = yield* get(`/chains/${slug}/quantum-readiness`)
            assert.strictEqual(r.status, 200, slug)
            const body = r.json as Json
            assert.strictEqual(body.available, false, slug)
            assert.strictEqual(body.reason, reason, slug)
            assert.notProperty(body, "qri")
            attributed(body)
          }
        })
    )

    it.effect("rule 3: a failed refresh with a fresh snapshot keeps serving it, without stale", () =>
      Effect.gen(function* () {
        const script = yield* QuantumSourceMemory
        const before = (yield* get("/quantum-readiness")).json as Json
        yield* script.fail("upstream answered 500")
        const outcome = yield* refresh
        assert.isFalse(outcome.outcome.ok)
        const after = (yield* get("/quantum-readiness")).json as Json
        assert.deepStrictEqual(after, before)
        assert.notProperty(after, "stale")
      })
    )

    it.effect("rule 3: stale: true only when a refresh failed and the served snapshot has expired", () =>
      Effect.gen(function* () {
        const store = yield* QuantumSnapshotStore
        const fetched = Date.now() - 48 * 60 * 60 * 1000
        yield* store.save(
          makeSnapshot(
            { rows: ((yield* get("/quantum-readiness")).json as Json).rows, rows_skipped: 0 },
            { now: fetched, ttlMillis: 24 * 60 * 60 * 1000 }
          )
        )
        yield* store.recordOutcome({ at: isoTimestamp(fetched), ok: true })
        const expiredNoFailure = (yield* get("/quantum-readiness")).json as Json
        assert.strictEqual(expiredNoFailure.available, true)
        assert.notProperty(expiredNoFailure, "stale")

        const script = yield* QuantumSourceMemory
        yield* script.fail("upstream timed out")
        yield* refresh
        const table = (yield* get("/quantum-readiness")).json as Json
        assert.strictEqual(table.available, true)
        assert.strictEqual(table.stale, true)
        assert.strictEqual(table.as_of, isoTimestamp(fetched))
        const chain = (yield* get(`/chains/${slugOf("chain", "alpha")}/quantum-readiness`)).json as Json
        assert.strictEqual(chain.stale, true)

        yield* script.respond(upstreamRows)
        yield* refresh
        assert.notProperty((yield* get("/quantum-readiness")).json as Json, "stale")
      })
    )

    it.effect("quantum data never feeds grades: chain scorecards are unchanged by a refresh", () =>
      Effect.gen(function* () {
        const path = `/chains/${slugOf("chain", "alpha")}/scorecards`
        const before = (yield* get(path, "enterprise")).json
        const script = yield* QuantumSourceMemory
        yield* script.respond([row(slugOf("chain", "alpha"), "Chain Alpha", 99)])
        yield* refresh
        assert.strictEqual(
          ((yield* get(`/chains/${slugOf("chain", "alpha")}/quantum-readiness`)).json as Json).qri,
          99
        )
        assert.deepStrictEqual((yield* get(path, "enterprise")).json, before)
      })
    )

    it.effect("public: no key needed, callable cross-origin, the same for every caller", () =>
      Effect.gen(function* () {
        const anonymous = yield* get("/quantum-readiness")
        assert.strictEqual(anonymous.headers.get("access-control-allow-origin"), "*")
        for (const caller of ["free", "pro", "enterprise", "admin"] as const) {
          assert.deepStrictEqual((yield* get("/quantum-readiness", caller)).json, anonymous.json, caller)
        }
      })
    )

    it.effect(
      "the league table is bounded by the row bound: more than MaxQuantumRows rows are refused and the table is unchanged; MaxQuantumRows rows of the longest texts stay under 1.5 MB",
      () =>
        Effect.gen(function* () {
          const script = yield* QuantumSourceMemory
          const longest = (i: number) => `${i}-`.padEnd(MaxQuantumTextLength, "x")
          const widest = (i: number) =>
            row(longest(i), longest(i), 25, {
              profile: longest(i),
              band_label: longest(i),
              hybrid: longest(i),
              ignored: "y".repeat(5000)
            })
          const before = yield* get("/quantum-readiness")
          yield* script.respond(Array.from({ length: MaxQuantumRows + 1 }, (_, i) => widest(i)))
          const refused = yield* refresh
          assert.isFalse(refused.outcome.ok)
          assert.include(refused.outcome.error ?? "", `more than the ${MaxQuantumRows} accepted`)
          assert.deepStrictEqual(
            (yield* get("/quantum-readiness")).json,
            before.json,
            "the table is unchanged"
          )

          const tooLong = row("too-long", "x".repeat(MaxQuantumTextLength + 1))
          yield* script.respond([...Array.from({ length: MaxQuantumRows - 1 }, (_, i) => widest(i)), tooLong])
          assert.isTrue((yield* refresh).outcome.ok)
          const table = yield* get("/quantum-readiness")
          const body = table.json as Json
          assert.strictEqual(body.rows.length, MaxQuantumRows - 1)
          assert.strictEqual(body.rows_skipped, 1, "a text over MaxQuantumTextLength costs its row")
          const bytes = Buffer.byteLength(table.text)
          assert.isAbove(bytes, 1_000_000)
          assert.isBelow(bytes, 1_500_000)
        })
    )
  })

onEachBackend((it) => quantumRoutes(it))
