/**
 * The import's `received_at` on incident reports: the report is ingested with
 * the clock at that instant, so the incidents an import loads are detected
 * when their reports were received, not when the import ran, and the feed
 * (newest first by detected_at, `since`) follows them. The rules that keep
 * it meaningful: not before first_seen_at, and going forward in ingest order.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { ImportIssue } from "../../src/import/ImportIssue.ts"
import type { ImportSource } from "../../src/import/ImportJsonText.ts"
import { IncidentRepository } from "../../src/ports/IncidentRepository.ts"
import { Importer } from "../../src/services/Importer.ts"
import { file, incident, type Json } from "../import/ImportFixtures.ts"

const src = (name: string, content: Json): ImportSource => ({ name, content })

const issuesOf = (sources: ReadonlyArray<ImportSource>) =>
  Effect.gen(function* () {
    const result = yield* Effect.flip((yield* Importer).validate(sources))
    assert.strictEqual(result._tag, "ImportInvalid")
    return result._tag === "ImportInvalid" ? result.issues : []
  })

const run = (sources: ReadonlyArray<ImportSource>) =>
  Effect.gen(function* () {
    const importer = yield* Importer
    return yield* importer.apply(yield* importer.validate(sources))
  })

const messagesAt = (issues: ReadonlyArray<ImportIssue>, path: string) =>
  issues.filter((i) => i.path === path).map((i) => i.message)

/** A served date-time as the instant it names, whatever its written form. */
const instant = (at: string) => new Date(Date.parse(at)).toISOString()

const feed = (query: { readonly since?: number } = {}) =>
  Effect.flatMap(IncidentRepository, (r) =>
    r.feed({
      min_status: "rumored",
      limit: 50,
      offset: 0,
      ...(query.since === undefined ? {} : { sinceMillis: query.since })
    })
  )

/** Two incidents, a month apart, each corroborated by its second report. */
const july = [
  incident("jul-1", "blockaid", {
    first_seen_at: "2026-07-08T09:00:00Z",
    received_at: "2026-07-08T09:04:00Z"
  }),
  incident("jul-2", "peckshield", {
    first_seen_at: "2026-07-08T09:30:00Z",
    received_at: "2026-07-08T09:31:00Z"
  })
]
const august = [
  incident("aug-1", "blockaid", {
    protocol_name: "Other Protocol",
    first_seen_at: "2026-08-11T18:00:00Z",
    received_at: "2026-08-11T18:02:00Z"
  }),
  incident("aug-2", "certik", {
    protocol_name: "Other Protocol",
    first_seen_at: "2026-08-11T18:20:00Z",
    received_at: "2026-08-11T18:26:00Z"
  })
]

describe("import: incident reports' received_at", () => {
  it.effect(
    "an incident is detected when the report that made it servable was received, and the feed orders by it",
    () =>
      Effect.gen(function* () {
        yield* run([src("a.json", file({ incidents: [...july, ...august] }))])
        const page = yield* feed()
        assert.deepStrictEqual(
          page.items.map((i) => [i.protocol_name, instant(i.detected_at)]),
          [
            ["Other Protocol", "2026-08-11T18:26:00.000Z"],
            ["Lend Protocol", "2026-07-08T09:31:00.000Z"]
          ]
        )
        const since = yield* feed({ since: Date.parse("2026-08-01T00:00:00Z") })
        assert.deepStrictEqual(
          since.items.map((i) => i.protocol_name),
          ["Other Protocol"]
        )
      }).pipe(Effect.provide(Importer.layerTest))
  )

  it.effect("an escalation refreshes detected_at to the escalating report's received_at", () =>
    Effect.gen(function* () {
      const confirm = (nonce: string, handle: string, received_at: string) =>
        incident(nonce, handle, {
          claimed_tier: "confirmed",
          first_seen_at: "2026-07-08T10:00:00Z",
          received_at
        })
      yield* run([
        src(
          "a.json",
          file({
            incidents: [
              ...july,
              confirm("jul-3", "team", "2026-07-08T12:00:00Z"),
              confirm("jul-4", "certik", "2026-07-08T13:45:00Z")
            ]
          })
        )
      ])
      const [item] = (yield* feed()).items
      assert.strictEqual(item?.status, "confirmed")
      assert.strictEqual(instant(item!.detected_at), "2026-07-08T13:45:00.000Z")
      assert.strictEqual(instant(item!.first_seen_at), "2026-07-08T09:00:00.000Z")
    }).pipe(Effect.provide(Importer.layerTest))
  )

  it.effect("a report received before its source first saw the hack is refused at its received_at", () =>
    Effect.gen(function* () {
      const issues = yield* issuesOf([
        src(
          "a.json",
          file({ incidents: [incident("n-1", "blockaid", { received_at: "2026-07-30T11:59:59Z" })] })
        )
      ])
      assert.deepStrictEqual(messagesAt(issues, "$.incidents[0].received_at"), [
        "received_at 2026-07-30T11:59:59Z is before first_seen_at 2026-07-30T12:00:00Z"
      ])
    }).pipe(Effect.provide(Importer.layerTest))
  )

  it.effect("reports go forward in ingest order, across files in name order", () =>
    Effect.gen(function* () {
      const issues = yield* issuesOf([
        src("a.json", file({ incidents: august })),
        src("b.json", file({ incidents: july }))
      ])
      assert.deepStrictEqual(messagesAt(issues, "$.incidents[0].received_at"), [
        "reports are ingested in order: received_at 2026-07-08T09:04:00Z is before that of a.json $.incidents[1]"
      ])
      assert.strictEqual(issues.length, 2)
    }).pipe(Effect.provide(Importer.layerTest))
  )

  it.effect("a dated report cannot follow an undated one, which is received at the time of the import", () =>
    Effect.gen(function* () {
      const issues = yield* issuesOf([
        src("a.json", file({ incidents: [incident("n-0", "certik"), ...july] }))
      ])
      assert.strictEqual(messagesAt(issues, "$.incidents[1].received_at").length, 1)
      assert.match(
        messagesAt(issues, "$.incidents[1].received_at")[0]!,
        /a\.json \$\.incidents\[0\] has no received_at/
      )
    }).pipe(Effect.provide(Importer.layerTest))
  )

  it.effect("a malformed received_at is a schema error at its path", () =>
    Effect.gen(function* () {
      const issues = yield* issuesOf([
        src("a.json", file({ incidents: [incident("n-1", "blockaid", { received_at: "yesterday" })] }))
      ])
      assert.strictEqual(messagesAt(issues, "$.incidents[0].received_at").length, 1)
    }).pipe(Effect.provide(Importer.layerTest))
  )
})
