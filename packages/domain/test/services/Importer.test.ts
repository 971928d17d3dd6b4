import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { sourceDecoder } from "../../src/import/ImportDecode.ts"
import type { ImportIssue } from "../../src/import/ImportIssue.ts"
import type { ImportSource } from "../../src/import/ImportJsonText.ts"
import { changedNothing, type ImportPhase } from "../../src/import/ImportPlan.ts"
import { EntityRepository } from "../../src/ports/EntityRepository.ts"
import { IncidentRepository } from "../../src/ports/IncidentRepository.ts"
import { QuantumSnapshotStore } from "../../src/ports/QuantumSnapshotStore.ts"
import { MaxQuantumRows } from "../../src/quantum/QuantumRows.ts"
import { RubricRepository } from "../../src/ports/RubricRepository.ts"
import { ScorecardRepository } from "../../src/ports/ScorecardRepository.ts"
import { Transaction } from "../../src/ports/Transaction.ts"
import { Scoring } from "../../src/scoring/Scoring.ts"
import { IncidentService, RatedProtocolsMemory } from "../../src/services/IncidentService.ts"
import { Importer } from "../../src/services/Importer.ts"
import { Publisher } from "../../src/services/Publisher.ts"
import {
  answer,
  bridgeQuestions,
  entity,
  file,
  id,
  incident,
  type Json,
  protocolAnswers,
  protocolQuestions,
  publication,
  quantumRow,
  scorecard,
  storeSnapshot
} from "../import/ImportFixtures.ts"
import { AlertRuleRepositoryMemory } from "../../src/ports/memory/AlertRuleRepositoryMemory.ts"
import { EntityRepositoryMemory } from "../../src/ports/memory/EntityRepositoryMemory.ts"
import { IdGeneratorMemory } from "../../src/ports/memory/IdGeneratorMemory.ts"
import { IncidentRepositoryMemory } from "../../src/ports/memory/IncidentRepositoryMemory.ts"
import { QuantumSnapshotStoreMemory } from "../../src/ports/memory/QuantumSnapshotStoreMemory.ts"
import { RubricRepositoryMemory } from "../../src/ports/memory/RubricRepositoryMemory.ts"
import { ScorecardRepositoryMemory } from "../../src/ports/memory/ScorecardRepositoryMemory.ts"
import { DeliveryOutboxMemory } from "../../src/ports/memory/DeliveryOutboxMemory.ts"

const src = (name: string, content: Json): ImportSource => ({ name, content })

/** The issues validate reports, or a failure of the test when it accepts the import. */
const issuesOf = (sources: ReadonlyArray<ImportSource>) =>
  Effect.gen(function* () {
    const importer = yield* Importer
    const result = yield* Effect.flip(importer.validate(sources))
    assert.strictEqual(result._tag, "ImportInvalid")
    return result._tag === "ImportInvalid" ? result.issues : []
  })

const run = (sources: ReadonlyArray<ImportSource>) =>
  Effect.gen(function* () {
    const importer = yield* Importer
    return yield* importer.apply(yield* importer.validate(sources))
  })

const find = (issues: ReadonlyArray<ImportIssue>, path: string): ImportIssue => {
  const hit = issues.find((i) => i.path === path)
  assert.isDefined(hit, `no issue at ${path}; got ${JSON.stringify(issues, null, 1)}`)
  return hit!
}

const lend = entity("protocol", "lend-protocol", 1, { categories: ["lending"] })
const base = file({ entities: [lend], questions: protocolQuestions })

describe("Importer", () => {
  it.effect("domain weights that do not sum to 100 are refused, on entities and on scorecards", () =>
    Effect.gen(function* () {
      const issues = yield* issuesOf([
        src(
          "weights.json",
          file({
            entities: [{ ...lend, domain_weights: { security: 50, governance: 40 } }],
            questions: protocolQuestions,
            scorecards: [
              scorecard(10, "lend-protocol", 1, protocolAnswers(100), {
                domain_weights: { security: 70, governance: 40 }
              })
            ]
          })
        )
      ])
      assert.match(
        find(issues, "$.entities[0].domain_weights").message,
        /must sum to 100, but they sum to 90/
      )
      assert.match(
        find(issues, "$.scorecards[0].domain_weights").message,
        /must sum to 100, but they sum to 110/
      )
      assert.strictEqual(issues[0]!.source, "weights.json")
    }).pipe(Effect.provide(Importer.layerTest))
  )

  it.effect("unknown question ids are refused against the catalogue of the same import", () =>
    Effect.gen(function* () {
      const answers = [...protocolAnswers(100), answer(103, "PROT-XYZ-99", "security", 1)]
      const issues = yield* issuesOf([
        src("a.json", { ...base, scorecards: [scorecard(10, "lend-protocol", 1, answers)] })
      ])
      assert.strictEqual(
        find(issues, "$.scorecards[0].answers[3].question_id").message,
        "unknown question id PROT-XYZ-99: not in the protocol catalogue of this import"
      )
    }).pipe(Effect.provide(Importer.layerTest))
  )

  it.effect(
    "unknown question ids are refused against the stored catalogue when the import has none of that type",
    () =>
      Effect.gen(function* () {
        yield* run([src("rubric.json", file({ questions: protocolQuestions }))])
        const answers = [
          answer(100, "PROT-SEC-01", "security", 4),
          answer(101, "NOT-A-QUESTION", "security", 1)
        ]
        const issues = yield* issuesOf([
          src("b.json", file({ entities: [lend], scorecards: [scorecard(10, "lend-protocol", 1, answers)] }))
        ])
        assert.match(
          find(issues, "$.scorecards[0].answers[1].question_id").message,
          /NOT-A-QUESTION: not in the protocol catalogue of the database/
        )
        const none = yield* issuesOf([
          src(
            "c.json",
            file({
              entities: [entity("oracle", "thin-oracle", 2)],
              scorecards: [
                scorecard(11, "thin-oracle", 1, [answer(102, "O-1", "security", 1)], {
                  entity_type: "oracle"
                })
              ]
            })
          )
        ])
        assert.match(find(none, "$.scorecards[0].answers").message, /no question catalogue for oracle/)
      }).pipe(Effect.provide(Importer.layerTest))
  )

  it.effect("duplicate slugs within a type are refused across all files of the import", () =>
    Effect.gen(function* () {
      const issues = yield* issuesOf([
        src("a.json", base),
        src(
          "b.json",
          file({ entities: [entity("protocol", "lend-protocol", 2), entity("oracle", "lend-protocol", 3)] })
        )
      ])
      assert.deepStrictEqual(
        issues.map((i) => `${i.source} ${i.path}`),
        ["b.json $.entities[0].record.slug"]
      )
      assert.match(
        issues[0]!.message,
        /duplicate slug: a\.json \$\.entities\[0\] is also the protocol lend-protocol/
      )
    }).pipe(Effect.provide(Importer.layerTest))
  )

  it.effect("a slug already held by a different entity id in the database is refused", () =>
    Effect.gen(function* () {
      yield* run([src("a.json", base)])
      const issues = yield* issuesOf([
        src("b.json", file({ entities: [entity("protocol", "lend-protocol", 9)] }))
      ])
      assert.strictEqual(
        find(issues, "$.entities[0].record.slug").message,
        `slug lend-protocol already belongs to another protocol in the database (id ${id(1)}); slugs are unique within a type`
      )
      // The same id under the same slug is an update, not a conflict.
      yield* run([
        src("c.json", file({ entities: [entity("protocol", "lend-protocol", 1, { name: "Lend" })] }))
      ])
    }).pipe(Effect.provide(Importer.layerTest))
  )

  it.effect("duplicate entity, scorecard and answer ids are refused", () =>
    Effect.gen(function* () {
      const issues = yield* issuesOf([
        src(
          "a.json",
          file({
            entities: [lend, entity("oracle", "thin-oracle", 1)],
            questions: protocolQuestions,
            scorecards: [
              scorecard(10, "lend-protocol", 1, protocolAnswers(100)),
              scorecard(10, "lend-protocol", 2, protocolAnswers(100))
            ]
          })
        )
      ])
      assert.match(find(issues, "$.entities[1].record.id").message, /duplicate entity id/)
      assert.match(find(issues, "$.scorecards[1].id").message, /duplicate scorecard id/)
      assert.match(find(issues, "$.scorecards[1].answers[0].id").message, /duplicate answer id/)
    }).pipe(Effect.provide(Importer.layerTest))
  )

  it.effect(
    "a scorecard, history, publication or dependency naming no entity in the import or database is refused",
    () =>
      Effect.gen(function* () {
        const issues = yield* issuesOf([
          src(
            "a.json",
            file({
              ...base,
              scorecards: [
                scorecard(10, "ghost-protocol", 1, protocolAnswers(100)),
                scorecard(11, "lend-protocol", 1, protocolAnswers(110), {
                  dependencies: [{ entity_type: "oracle", slug: "ghost-oracle", exposure: 0.5 }]
                })
              ],
              history: [{ entity_type: "chain", slug: "ghost-chain", entries: [] }],
              publications: [publication("ghost-protocol", 1, "2026-08-02T00:00:00Z")]
            })
          )
        ])
        assert.strictEqual(
          find(issues, "$.scorecards[0].slug").message,
          "no protocol with slug ghost-protocol in this import or in the database"
        )
        assert.match(
          find(issues, "$.scorecards[1].dependencies[0]").message,
          /dependency oracle ghost-oracle names no entity/
        )
        assert.match(find(issues, "$.history[0].slug").message, /no chain with slug ghost-chain/)
        assert.match(find(issues, "$.publications[0].slug").message, /no protocol with slug ghost-protocol/)
      }).pipe(Effect.provide(Importer.layerTest))
  )

  it.effect(
    "a bridge question list that is not the 62-question catalogue in canonical order is refused",
    () =>
      Effect.gen(function* () {
        const short = yield* issuesOf([src("short.json", file({ questions: bridgeQuestions.slice(0, 61) }))])
        assert.strictEqual(
          find(short, "$.questions").message,
          "the bridge questions are not the 62-question catalogue in canonical order: a bridge question list has 62 questions, this one has 61"
        )
        const swapped = bridgeQuestions.map((q, i) =>
          i === 0 ? { ...q, position: 2 } : i === 1 ? { ...q, position: 1 } : q
        )
        const order = yield* issuesOf([src("order.json", file({ questions: swapped }))])
        assert.match(
          find(order, "$.questions").message,
          /bridge question 1 must be BRG-SEC-01 \(canonical order\), found BRG-SEC-02/
        )
        const plan = yield* (yield* Importer).validate([src("ok.json", file({ questions: bridgeQuestions }))])
        assert.strictEqual(plan.catalogues[0]!.questions.length, 62)
      }).pipe(Effect.provide(Importer.layerTest))
  )

  it.effect("a draft that the scoring core cannot score is refused with the core's reason", () =>
    Effect.gen(function* () {
      const allNull = protocolQuestions.map((q, i) => answer(100 + i, q.id, q.domain, null))
      const issues = yield* issuesOf([
        src(
          "a.json",
          file({
            ...base,
            scorecards: [
              scorecard(10, "lend-protocol", 1, protocolAnswers(110), { domain_weights: { security: 100 } }),
              scorecard(11, "lend-protocol", 2, allNull)
            ]
          })
        )
      ])
      assert.strictEqual(
        find(issues, "$.scorecards[0].domain_weights").message,
        "the scoring core cannot score this draft: answers score domain governance, which this entity is not weighted on"
      )
      assert.match(
        find(issues, "$.scorecards[1].answers").message,
        /cannot score this draft: no weighted domain has a scored answer/
      )
    }).pipe(Effect.provide(Importer.layerTest))
  )

  it.effect("every error is reported at once: schema and domain errors of several files, all listed", () =>
    Effect.gen(function* () {
      const issues = yield* issuesOf([
        src("a.json", file({ ...base, entities: [lend, entity("protocol", "Bad Slug", 2)] })),
        src(
          "b.json",
          file({
            entities: [entity("protocol", "lend-protocol", 3)],
            scorecards: [scorecard(10, "lend-protocol", 1, [answer(100, "PROT-NOPE", "security", 1)])],
            publications: [publication("lend-protocol", 7, "2026-08-02T00:00:00Z")],
            colour: "blue"
          })
        )
      ])
      assert.deepStrictEqual(
        issues.map((i) => `${i.source} ${i.path}`),
        [
          "a.json $.entities[1].record.slug",
          "b.json $.colour",
          "b.json $.entities[0].record.slug",
          "b.json $.scorecards[0].answers[0].question_id",
          "b.json $.publications[0].scorecard_version"
        ]
      )
    }).pipe(Effect.provide(Importer.layerTest))
  )

  it.effect("sources decoded one at a time as they are read are validated exactly as a whole input", () =>
    Effect.gen(function* () {
      const importer = yield* Importer
      const sources = [
        src("a.json", file({ ...base, entities: [lend, entity("protocol", "Bad Slug", 2)] })),
        src(
          "b.json",
          file({
            entities: [entity("protocol", "lend-protocol", 3)],
            scorecards: [scorecard(10, "lend-protocol", 1, [answer(100, "PROT-NOPE", "security", 1)])],
            publications: [publication("lend-protocol", 7, "2026-08-02T00:00:00Z")],
            colour: "blue"
          })
        )
      ]
      const decoder = sourceDecoder()
      for (const source of sources) decoder.add(structuredClone(source))
      const streamed = yield* Effect.flip(
        importer.validateDecoded(
          decoder.result(),
          sources.map((s) => s.name)
        )
      )
      assert.strictEqual(streamed._tag, "ImportInvalid")
      assert.deepStrictEqual("issues" in streamed ? streamed.issues : [], yield* issuesOf(sources))
      const valid = [
        src("a.json", base),
        src("b.json", file({ entities: [entity("bridge", "a-bridge", 4)] }))
      ]
      const one = sourceDecoder()
      for (const source of valid) one.add(source)
      const plan = yield* importer.validateDecoded(
        one.result(),
        valid.map((s) => s.name)
      )
      assert.deepStrictEqual(plan, yield* importer.validate(valid))
    }).pipe(Effect.provide(Importer.layerTest))
  )

  it.effect(
    "an item that fails the schema is reported once, not again as missing where it is referenced",
    () =>
      Effect.gen(function* () {
        const broken = entity("protocol", "lend-protocol", 1, { is_active: "yes" })
        const issues = yield* issuesOf([
          src("a.json", file({ entities: [broken], questions: protocolQuestions })),
          src(
            "b.json",
            file({
              scorecards: [scorecard(10, "lend-protocol", 1, protocolAnswers(100))],
              publications: [publication("lend-protocol", 1, "2026-08-02T00:00:00Z")]
            })
          )
        ])
        assert.deepStrictEqual(
          issues.map((i) => `${i.source} ${i.path}: ${i.message}`),
          ['a.json $.entities[0].record.is_active: Expected boolean, got "yes"']
        )
      }).pipe(Effect.provide(Importer.layerTest))
  )

  it.effect("nothing is written when any error exists: the store is unchanged", () =>
    Effect.gen(function* () {
      yield* run([
        src("a.json", { ...base, scorecards: [scorecard(10, "lend-protocol", 1, protocolAnswers(100))] })
      ])
      const before = yield* storeSnapshot
      yield* issuesOf([
        src(
          "b.json",
          file({
            entities: [entity("oracle", "new-oracle", 5), entity("chain", "new-chain", 6)],
            questions: [question2()],
            scorecards: [scorecard(11, "lend-protocol", 2, [answer(200, "PROT-NOPE", "security", 1)])],
            incidents: [incident("n-1", "blockaid"), incident("n-2", "peckshield")],
            quantum_snapshot: {
              as_of: "2026-08-01T00:00:00Z",
              sample: true,
              rows: [quantumRow("ethereum", "Ethereum")]
            }
          })
        )
      ])
      assert.deepStrictEqual(yield* storeSnapshot, before)
    }).pipe(Effect.provide(Importer.layerTest))
  )

  it.effect("importing the same input twice changes nothing the second time", () =>
    Effect.gen(function* () {
      const sources = [src("demo.json", fullImport)]
      const first = yield* run(sources)
      assert.isFalse(changedNothing(first))
      assert.deepStrictEqual(first.publications, { created: 2, updated: 0, unchanged: 0 })
      assert.deepStrictEqual(first.incidents, { created: 1, updated: 1, unchanged: 0 })
      const after = yield* storeSnapshot
      const second = yield* run(sources)
      assert.isTrue(changedNothing(second), JSON.stringify(second))
      assert.deepStrictEqual(second, {
        entities: { created: 0, updated: 0, unchanged: 3 },
        questions: { created: 0, updated: 0, unchanged: 3, removed: 0 },
        scorecards: { created: 0, updated: 0, unchanged: 3 },
        history: { created: 0, updated: 0, unchanged: 1 },
        publications: { created: 0, updated: 0, unchanged: 2 },
        incidents: { created: 0, updated: 0, unchanged: 2 },
        quantum_snapshot: { created: 0, updated: 0, unchanged: 1 }
      })
      assert.deepStrictEqual(yield* storeSnapshot, after)
    }).pipe(Effect.provide(Importer.layerTest))
  )

  it.effect("publications replay creates versions and history with the given timestamps", () =>
    Effect.gen(function* () {
      yield* run([src("demo.json", fullImport)])
      const scorecards = yield* ScorecardRepository
      const versions = yield* scorecards.listForEntity("protocol", id(1))
      assert.deepStrictEqual(
        versions.map((s) => [
          s.scorecard_version,
          s.status,
          s.scorecard_published_at && Date.parse(s.scorecard_published_at)
        ]),
        [
          [3, "draft", null],
          [2, "published", Date.parse("2026-06-01T00:00:00Z")],
          [1, "superseded", Date.parse("2026-05-01T09:30:00+02:00")]
        ]
      )
      const history = yield* scorecards.history("protocol", id(1))
      assert.deepStrictEqual(
        history.map((h) => [h.scorecard_version, Date.parse(h.published_at), h.reasoning, h.changed_by]),
        [
          [2, Date.parse("2026-06-01T00:00:00Z"), "version 2 reviewed", "analyst@example.com"],
          [1, Date.parse("2026-05-01T09:30:00+02:00"), "version 1 reviewed", "analyst@example.com"]
        ]
      )
      // The core computed the figures: security (4+2)/8 = 0.75, governance 3/4 = 0.75 -> 75.
      assert.strictEqual(versions[2]!.composite_score, 75)
      assert.strictEqual(versions[1]!.composite_score, 100)
    }).pipe(Effect.provide(Importer.layerTest))
  )

  it.effect("the progress callback counts every planned step and reaches the total", () =>
    Effect.gen(function* () {
      const importer = yield* Importer
      const seen: Array<[number, number, ImportPhase]> = []
      const onProgress = (done: number, total: number, phase: ImportPhase) => seen.push([done, total, phase])
      const plan = yield* importer.validate([src("demo.json", fullImport)], { onProgress })
      yield* importer.apply(plan, { onProgress })
      const applied = seen.filter(([, , p]) => p !== "validation")
      const total = applied[0]![1]
      assert.strictEqual(total, 3 + 1 + 3 + 1 + 2 + 2 + 1)
      assert.deepStrictEqual(applied.at(-1), [total, total, "quantum_snapshot"])
      assert.isTrue(applied.every(([done], i) => i === 0 || done > applied[i - 1]![0]))
      assert.deepStrictEqual(seen.slice(0, 2), [
        [0, 1, "validation"],
        [1, 1, "validation"]
      ])
    }).pipe(Effect.provide(Importer.layerTest))
  )

  it.effect("a publication must name a scorecard version present in the import or the database", () =>
    Effect.gen(function* () {
      const issues = yield* issuesOf([
        src("a.json", { ...base, publications: [publication("lend-protocol", 4, "2026-08-02T00:00:00Z")] })
      ])
      assert.strictEqual(
        find(issues, "$.publications[0].scorecard_version").message,
        "protocol lend-protocol has no scorecard version 4 in this import or in the database"
      )
    }).pipe(Effect.provide(Importer.layerTest))
  )

  it.effect(
    "a claimed composite_score that the core does not reproduce is refused before anything is published",
    () =>
      Effect.gen(function* () {
        const issues = yield* issuesOf([
          src(
            "a.json",
            file({
              ...base,
              scorecards: [scorecard(10, "lend-protocol", 1, protocolAnswers(100), { composite_score: 90 })],
              publications: [publication("lend-protocol", 1, "2026-08-02T00:00:00Z")]
            })
          )
        ])
        assert.strictEqual(
          find(issues, "$.scorecards[0].composite_score").message,
          "the draft's composite_score (90) disagrees with the score computed from its answers (75)"
        )
      }).pipe(Effect.provide(Importer.layerTest))
  )

  it.effect(
    "a stored draft of a higher version blocks publishing an older one (the Publisher takes the latest draft)",
    () =>
      Effect.gen(function* () {
        yield* run([
          src("a.json", { ...base, scorecards: [scorecard(12, "lend-protocol", 5, protocolAnswers(100))] })
        ])
        const issues = yield* issuesOf([
          src(
            "b.json",
            file({
              scorecards: [scorecard(10, "lend-protocol", 1, protocolAnswers(110))],
              publications: [publication("lend-protocol", 1, "2026-08-02T00:00:00Z")]
            })
          )
        ])
        assert.match(
          find(issues, "$.publications[0].scorecard_version").message,
          /holds draft version 5 of protocol lend-protocol/
        )
      }).pipe(Effect.provide(Importer.layerTest))
  )

  it.effect("a draft whose id is stored as published is left untouched", () =>
    Effect.gen(function* () {
      yield* run([src("demo.json", fullImport)])
      const changed = {
        ...fullImport,
        scorecards: [scorecard(10, "lend-protocol", 1, protocolAnswers(100, [0, 0, 0]))]
      }
      const report = yield* run([src("demo.json", changed)])
      assert.deepStrictEqual(report.scorecards, { created: 0, updated: 0, unchanged: 1 })
      const stored = yield* (yield* ScorecardRepository).findById("protocol", id(10))
      assert.strictEqual(Option.getOrThrow(stored).composite_score, 75)
    }).pipe(Effect.provide(Importer.layerTest))
  )

  it.effect(
    "incident reports are ingested through the incident service, and the same nonce twice changes nothing",
    () =>
      Effect.gen(function* () {
        const issues = yield* issuesOf([
          src(
            "a.json",
            file({ incidents: [{ ...incident("n-1", "blockaid"), exploit_class: "reentrancy" }] })
          )
        ])
        assert.match(find(issues, "$.incidents[0].exploit_class").message, /Expected a string matching/)
        const report = yield* run([
          src(
            "b.json",
            file({
              incidents: [
                incident("n-1", "blockaid"),
                incident("n-1", "blockaid"),
                incident("n-2", "peckshield")
              ]
            })
          )
        ])
        assert.deepStrictEqual(report.incidents, { created: 1, updated: 1, unchanged: 1 })
        const feed = yield* (yield* IncidentRepository).feed({ min_status: "rumored", limit: 10, offset: 0 })
        assert.deepStrictEqual(
          feed.items.map((i) => [i.status, i.source_count]),
          [["corroborated", 2]]
        )
      }).pipe(Effect.provide(Importer.layerTest))
  )

  it.effect("a quantum snapshot is skipped when the latest stored one has the same as_of", () =>
    Effect.gen(function* () {
      const q = (as_of: string) =>
        file({
          quantum_snapshot: { as_of, sample: true, rows: [quantumRow("ethereum", "Ethereum"), { slug: 1 }] }
        })
      const first = yield* run([src("q.json", q("2026-08-01T00:00:00Z"))])
      assert.deepStrictEqual(first.quantum_snapshot, { created: 1, updated: 0, unchanged: 0 })
      const latest = Option.getOrThrow(yield* (yield* QuantumSnapshotStore).latest)
      assert.deepStrictEqual(
        [latest.rows.length, latest.rows_skipped, latest.sample, Date.parse(latest.as_of)],
        [1, 1, true, Date.parse("2026-08-01T00:00:00Z")]
      )
      const again = yield* run([src("q.json", q("2026-08-01T00:00:00.000+00:00"))])
      assert.deepStrictEqual(again.quantum_snapshot, { created: 0, updated: 0, unchanged: 1 })
      const newer = yield* run([src("q.json", q("2026-08-02T00:00:00Z"))])
      assert.deepStrictEqual(newer.quantum_snapshot, { created: 0, updated: 1, unchanged: 0 })
      const empty = yield* issuesOf([
        src("e.json", file({ quantum_snapshot: { as_of: "2026-08-03T00:00:00Z", sample: true, rows: [{}] } }))
      ])
      assert.match(
        find(empty, "$.quantum_snapshot.rows").message,
        /no row of the snapshot is readable \(1 skipped\)/
      )
    }).pipe(Effect.provide(Importer.layerTest))
  )

  it.effect("a quantum snapshot of more than MaxQuantumRows rows is refused with an issue at its rows", () =>
    Effect.gen(function* () {
      const rows = (n: number) => Array.from({ length: n }, (_, i) => quantumRow(`chain-${i}`, `Chain ${i}`))
      const q = (n: number) =>
        file({ quantum_snapshot: { as_of: "2026-08-01T00:00:00Z", sample: true, rows: rows(n) } })
      const issues = yield* issuesOf([src("q.json", q(MaxQuantumRows + 1))])
      assert.strictEqual(
        find(issues, "$.quantum_snapshot.rows").message,
        `the snapshot has ${MaxQuantumRows + 1} rows, more than the ${MaxQuantumRows} accepted`
      )
      assert.isTrue(Option.isNone(yield* (yield* QuantumSnapshotStore).latest), "nothing stored")
      const report = yield* run([src("q.json", q(MaxQuantumRows))])
      assert.deepStrictEqual(report.quantum_snapshot, { created: 1, updated: 0, unchanged: 0 })
    }).pipe(Effect.provide(Importer.layerTest))
  )

  it.effect("a question catalogue in the import replaces the stored one of that type", () =>
    Effect.gen(function* () {
      yield* run([src("a.json", file({ questions: protocolQuestions }))])
      const report = yield* run([
        src(
          "b.json",
          file({ questions: [protocolQuestions[0], { ...protocolQuestions[1], text: "new text" }] })
        )
      ])
      assert.deepStrictEqual(report.questions, { created: 0, updated: 1, unchanged: 1, removed: 1 })
      const stored = yield* (yield* RubricRepository).questions("protocol")
      assert.deepStrictEqual(
        stored.map((q) => [q.id, q.text]),
        [
          ["PROT-SEC-01", "PROT-SEC-01?"],
          ["PROT-SEC-02", "new text"]
        ]
      )
      assert.strictEqual((yield* (yield* EntityRepository).all("protocol")).length, 0)
    }).pipe(Effect.provide(Importer.layerTest))
  )
})

/** Records every write with the transaction depth it ran at, and how many outermost transactions ran. */
const journal = {
  depth: 0,
  outermost: 0,
  writes: [] as Array<[string, number]>,
  /** The entity port's lookups, as `method type`. */
  entityReads: [] as Array<string>
}
const readLogged =
  (name: string) =>
  <A, E, R>(type: string, effect: Effect.Effect<A, E, R>) =>
    Effect.andThen(
      Effect.sync(() => journal.entityReads.push(`${name} ${type}`)),
      effect
    )
const logged =
  (name: string) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.andThen(
      Effect.sync(() => journal.writes.push([name, journal.depth])),
      effect
    )

const journaledPorts = Layer.mergeAll(
  Layer.succeed(
    Transaction,
    Transaction.of({
      run: (effect) =>
        Effect.suspend(() => {
          if (journal.depth === 0) journal.outermost++
          journal.depth++
          return Effect.ensuring(
            effect,
            Effect.sync(() => journal.depth--)
          )
        })
    })
  ),
  Layer.effect(
    EntityRepository,
    Effect.map(EntityRepository, (r) => ({
      ...r,
      upsert: (e) => logged("entities")(r.upsert(e)),
      all: (t) => readLogged("all")(t, r.all(t)),
      findMany: (t, l) => readLogged("findMany")(t, r.findMany(t, l)),
      findBySlug: (t, s) => readLogged("findBySlug")(t, r.findBySlug(t, s))
    }))
  ).pipe(Layer.provide(EntityRepositoryMemory.layer())),
  Layer.effect(
    RubricRepository,
    Effect.map(RubricRepository, (r) => ({ ...r, replace: (t, q) => logged("questions")(r.replace(t, q)) }))
  ).pipe(Layer.provide(RubricRepositoryMemory.layer())),
  Layer.effect(
    ScorecardRepository,
    Effect.map(ScorecardRepository, (r) => ({
      ...r,
      saveDraft: (d) => logged("draft")(r.saveDraft(d)),
      saveDrafts: (ds) => logged("draft")(r.saveDrafts(ds)),
      importHistory: (id, h) => logged("history")(r.importHistory(id, h)),
      publish: (p) => logged("publish")(r.publish(p)),
      publishMany: (ps) => logged("publish")(r.publishMany(ps))
    }))
  ).pipe(Layer.provide(ScorecardRepositoryMemory.layer())),
  Layer.effect(
    IncidentRepository,
    Effect.map(IncidentRepository, (r) => ({ ...r, upsert: (i) => logged("incident")(r.upsert(i)) }))
  ).pipe(Layer.provide(IncidentRepositoryMemory.layer)),
  Layer.effect(
    QuantumSnapshotStore,
    Effect.map(QuantumSnapshotStore, (r) => ({ ...r, save: (q) => logged("quantum")(r.save(q)) }))
  ).pipe(Layer.provide(QuantumSnapshotStoreMemory.layer)),
  AlertRuleRepositoryMemory.layer,
  DeliveryOutboxMemory.layer,
  IdGeneratorMemory.layer,
  Scoring.layer
).pipe(Layer.provideMerge(RatedProtocolsMemory.layer))

const journaledImporter = Importer.layer.pipe(
  Layer.provideMerge(Layer.mergeAll(Publisher.layer, IncidentService.layer)),
  Layer.provideMerge(journaledPorts)
)

describe("Importer.apply", () => {
  it.effect(
    "writes everything inside one transaction: every write runs within a single outermost Transaction.run",
    () =>
      Effect.gen(function* () {
        journal.outermost = 0
        journal.writes = []
        yield* run([src("demo.json", fullImport)])
        assert.strictEqual(journal.outermost, 1)
        assert.deepStrictEqual(
          [...new Set(journal.writes.map(([name]) => name))],
          ["entities", "questions", "history", "draft", "publish", "incident", "quantum"]
        )
        assert.deepStrictEqual(
          journal.writes.filter(([, depth]) => depth < 1),
          []
        )
      }).pipe(Effect.provide(journaledImporter))
  )
})

describe("Importer.apply entity reads", () => {
  it.effect("the publications take the plan's entities: none is read back from the store", () =>
    Effect.gen(function* () {
      const importer = yield* Importer
      const plan = yield* importer.validate([src("demo.json", fullImport)])
      journal.entityReads = []
      const report = yield* importer.apply(plan)
      assert.strictEqual(report.publications.created, 2)
      // Only the quantum snapshot's matching reads the chains.
      assert.deepStrictEqual(journal.entityReads, ["all chain"])
    }).pipe(Effect.provide(journaledImporter))
  )
})

const question2 = () => ({ ...protocolQuestions[0], id: "PROT-SEC-09", position: 9 })

/** Three entities, a catalogue, three drafts of which two are published in order, history, incidents, a snapshot. */
const fullImport: Json = file({
  entities: [lend, entity("oracle", "thin-oracle", 2), entity("chain", "ethereum", 3)],
  questions: protocolQuestions,
  scorecards: [
    scorecard(10, "lend-protocol", 1, protocolAnswers(100), { composite_score: 75 }),
    scorecard(11, "lend-protocol", 2, protocolAnswers(110, [4, 4, 4])),
    scorecard(12, "lend-protocol", 3, protocolAnswers(120, [1, 1, 1]))
  ],
  history: [
    {
      entity_type: "oracle",
      slug: "thin-oracle",
      entries: [
        {
          scorecard_id: id(50),
          scorecard_version: 1,
          grade: "B",
          letter_grade: "B",
          composite_score: 61,
          intrinsic_composite_score: 61,
          intrinsic_letter_grade: "B",
          published_at: "2025-01-01T00:00:00Z",
          reasoning: "rated before the service existed"
        }
      ]
    }
  ],
  publications: [
    publication("lend-protocol", 1, "2026-05-01T09:30:00+02:00"),
    publication("lend-protocol", 2, "2026-06-01T00:00:00Z")
  ],
  incidents: [incident("n-1", "blockaid"), incident("n-2", "peckshield")],
  quantum_snapshot: {
    as_of: "2026-08-01T00:00:00Z",
    sample: true,
    rows: [quantumRow("ethereum", "Ethereum")]
  }
})
