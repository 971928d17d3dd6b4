/**
 * Every case the spec defines, listed against the committed demo files, one
 * test per case, so that a newcomer exploring the demo (and a black-box test
 * against a demo server) meets each of them: every entity type in every
 * status, inactive and private records of every type, a bridge whose
 * validator_set_owner is filled and points at an organisation that does not
 * resolve, a visible chain the quantum source has not assessed,
 * not_applicable answers in every rubric, and incidents with realistic
 * detection times spanning months.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { ImportDecodeOptions, type ImportEntityInput, ImportFile } from "@ratings/domain/import/ImportFile"
import { EntityStatuses } from "@ratings/domain/model/Entity"
import { EntityTypes } from "@ratings/domain/model/EntityType"
import { matchRows, readRows } from "@ratings/domain/quantum/QuantumRows"
import { Schema } from "effect"
import { replayPublications } from "../src/DemoReplay.ts"

const dataDir = join(import.meta.dirname, "..", "data")
const files: ReadonlyArray<ImportFile> = readdirSync(dataDir)
  .filter((n) => n.endsWith(".json"))
  .sort()
  .map((n) =>
    Schema.decodeUnknownSync(ImportFile)(
      JSON.parse(readFileSync(join(dataDir, n), "utf8")),
      ImportDecodeOptions
    )
  )
const entities = files.flatMap((f) => f.entities ?? [])
const scorecards = files.flatMap((f) => f.scorecards ?? [])
const incidents = files.flatMap((f) => f.incidents ?? [])
const ofType = (type: string) => entities.filter((e) => e.entity_type === type)
const visible = (e: ImportEntityInput) => e.record.is_active && !e.record.is_private
const an = (word: string) => (/^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`)

describe("demo cases: entity status and visibility (spec part 2 Visibility, part 3 Entity status)", () => {
  for (const type of EntityTypes) {
    for (const status of EntityStatuses) {
      it(`${an(type)} in status ${status}`, () => {
        assert.isTrue(
          ofType(type).some((e) => e.record.status === status),
          `no ${status} ${type} in the demo`
        )
      })
    }
    it(`an inactive ${type} (is_active false)`, () => {
      assert.isTrue(ofType(type).some((e) => !e.record.is_active))
    })
    it(`a private ${type} (is_private true)`, () => {
      assert.isTrue(ofType(type).some((e) => e.record.is_private))
    })
  }
})

describe("demo cases: bridges' validator_set_owner (spec part 2 Bridge security fields)", () => {
  const owned = () =>
    ofType("bridge").filter((e) => "validator_set_owner" in e.record && e.record.validator_set_owner)

  it("a bridge whose validator_set_owner is filled with an organisation of the demo", () => {
    assert.isAtLeast(owned().length, 1)
    for (const b of owned()) {
      const ref = (b.record as { validator_set_owner: { id: string; slug: string } }).validator_set_owner
      const org = ofType("organisation").find((o) => o.record.id === ref.id)
      assert.strictEqual(org?.record.slug, ref.slug)
    }
  })

  const ownerOf = (b: ImportEntityInput) => {
    const ref = (b.record as { validator_set_owner: { id: string } }).validator_set_owner
    return ofType("organisation").find((o) => o.record.id === ref.id)!
  }

  it("an unpublished validator-set owner, which does not resolve under /organisations", () => {
    for (const b of owned()) assert.notStrictEqual(ownerOf(b).record.status, "published", b.record.slug)
  })

  it("a published, visible bridge names its owner in public: the owner is neither private nor inactive", () => {
    const named = owned().filter((b) => b.record.status === "published" && visible(b) && visible(ownerOf(b)))
    assert.isAtLeast(named.length, 1)
  })

  it("a published bridge whose owner is private, so the public reads validator_set_owner null", () => {
    assert.isTrue(owned().some((b) => b.record.status === "published" && ownerOf(b).record.is_private))
  })
})

describe("demo cases: quantum readiness (spec part 4 Quantum readiness)", () => {
  const snapshot = files.flatMap((f) => (f.quantum_snapshot === undefined ? [] : [f.quantum_snapshot]))[0]!
  const visibleChains = ofType("chain")
    .filter(visible)
    .map((c) => ({ slug: c.record.slug, name: c.record.name, status: c.record.status }))
  const matched = new Set(
    matchRows(readRows(snapshot.rows).rows, visibleChains).flatMap((r) =>
      r.matched_chain_slug === null ? [] : [r.matched_chain_slug]
    )
  )

  it("a published, visible chain the quantum source does not match (no row names it)", () => {
    const unmatched = visibleChains.filter((c) => c.status === "published" && !matched.has(c.slug))
    assert.isAtLeast(unmatched.length, 1)
  })

  it("a draft chain the quantum source matches (drafts included, not necessarily rated)", () => {
    assert.isTrue(visibleChains.some((c) => c.status === "draft" && matched.has(c.slug)))
  })
})

describe("demo cases: not_applicable answers (spec part 1 Score composition rule 3)", () => {
  const published = new Set(
    replayPublications(files).map((v) => `${v.entity_type}:${v.slug}:${v.scorecard_version}`)
  )
  for (const type of EntityTypes) {
    it(`not_applicable answers in the ${type} rubric, on a published scorecard`, () => {
      const cards = scorecards.filter(
        (s) => s.entity_type === type && published.has(`${s.entity_type}:${s.slug}:${s.scorecard_version}`)
      )
      const ruledOut = cards.flatMap((s) => s.answers.filter((a) => a.confidence === "not_applicable"))
      assert.isAtLeast(ruledOut.length, 1, `no published ${type} scorecard rules a question out`)
      for (const a of ruledOut) assert.isNull(a.score)
    })
  }
})

describe("demo cases: incidents (spec part 2 Incident, part 4 Incidents)", () => {
  const DayMillis = 86_400_000

  it("every report carries when the service received it, at or shortly after its source first saw it", () => {
    for (const r of incidents) {
      assert.isString(r.received_at, r.nonce)
      const lag = Date.parse(r.received_at!) - Date.parse(r.first_seen_at)
      assert.isAtLeast(lag, 0, r.nonce)
      assert.isAtMost(lag, 60 * 60 * 1000, r.nonce)
    }
  })

  it("reports are ingested in the order the service received them, over months", () => {
    const received = incidents.map((r) => Date.parse(r.received_at!))
    assert.deepStrictEqual(
      received,
      [...received].sort((a, b) => a - b)
    )
    assert.isAbove(received.at(-1)! - received[0]!, 60 * DayMillis)
  })
})
