/**
 * The demo dataset as import files, in the order the importer reads them
 * (by name): rubric, entities, draft scorecards, history and publications,
 * incidents, and the sample quantum snapshot. Pure: nothing here touches the
 * file system, so tests can compare a fresh build with the committed files.
 */
import {
  type ImportEntity,
  type ImportFile,
  ImportFormatVersion,
  type ImportPublication,
  type ImportScorecard
} from "@ratings/domain/import/ImportFile"
import type { HistoryEntry } from "@ratings/domain/model/Responses"
import { gradeOf } from "@ratings/domain/scoring/GradeLadder"
import { answerSheet, evidenceFor } from "./AnswerSheet.ts"
import { DemoSpecs, idOf, importEntityOf, specOf, weightsOf } from "./DemoEntities.ts"
import { MigrationActor, PreServiceHistory } from "./DemoHistory.ts"
import { DemoIncidentReports } from "./DemoIncidents.ts"
import { formatJson } from "./DemoJson.ts"
import { QuantumAsOf, QuantumSampleRows } from "./DemoQuantum.ts"
import { type EntitySpec, keyOf } from "./DemoSpec.ts"
import { QuestionsByType, RubricQuestions } from "./rubric/Rubric.ts"
import { uuidV5 } from "./StableIds.ts"

export interface DemoFile {
  readonly name: string
  readonly content: ImportFile
}

const DefaultActor = "analyst:ratings-team"

export const scorecardIdOf = (spec: EntitySpec, version: number): string =>
  uuidV5(`scorecard:${keyOf(spec)}:v${version}`)

/** Evidence is collected a few days before the version it supports is published. */
const collectedBefore = (at: string): string =>
  new Date(Date.parse(at) - 3 * 86_400_000).toISOString().replace(".000Z", "Z")

const scorecardsOf = (spec: EntitySpec): ReadonlyArray<ImportScorecard> => {
  const rating = spec.rating
  if (rating === undefined) return []
  const weights = weightsOf(spec)
  const first = rating.firstVersion ?? 1
  return rating.versions.map((v, i) => {
    const version = first + i
    const id = scorecardIdOf(spec, version)
    const answers = answerSheet({
      spec,
      questions: QuestionsByType[spec.type],
      weights,
      scorecardId: id,
      versionIndex: i
    })
    const asOf = v.publish?.at ?? spec.updated_at ?? spec.created_at
    return {
      id,
      entity_type: spec.type,
      slug: spec.slug,
      scorecard_version: version,
      domain_weights: weights,
      answers,
      evidence: evidenceFor(spec, answers, collectedBefore(asOf)),
      dependencies: (rating.dependencies ?? []).map((d) => ({
        entity_type: d.type,
        slug: d.slug,
        exposure: d.exposure
      }))
    }
  })
}

/** Publish acts in the order to replay them: by date, so dependencies are rated before their dependents. */
export const demoPublications = (): ReadonlyArray<ImportPublication> => {
  const out: Array<ImportPublication> = []
  for (const spec of DemoSpecs) {
    const first = spec.rating?.firstVersion ?? 1
    spec.rating?.versions.forEach((v, i) => {
      if (v.publish === undefined) return
      out.push({
        entity_type: spec.type,
        slug: spec.slug,
        scorecard_version: first + i,
        published_at: v.publish.at,
        reasoning: v.publish.reasoning,
        actor: v.publish.actor ?? DefaultActor
      })
    })
  }
  return out.sort((a, b) => (a.published_at < b.published_at ? -1 : a.published_at > b.published_at ? 1 : 0))
}

const historyOf = () =>
  PreServiceHistory.map((h) => {
    const spec = specOf(h.type, h.slug)
    return {
      entity_type: h.type,
      slug: h.slug,
      entries: h.entries.map(
        (e): HistoryEntry => ({
          scorecard_id: uuidV5(`history:${keyOf(spec)}:v${e.version}`),
          scorecard_version: e.version,
          grade: gradeOf(e.composite),
          letter_grade: gradeOf(e.composite),
          composite_score: e.composite,
          intrinsic_composite_score: e.intrinsic,
          intrinsic_letter_grade: gradeOf(e.intrinsic),
          published_at: e.published_at,
          reasoning: e.reasoning,
          changed_by: MigrationActor
        })
      )
    }
  })

/**
 * Biome skips files above 1 MiB, so the scorecards are split into files below
 * this size (whole entities per file, in entity order, numbered after 03-).
 */
const MaxScorecardFileBytes = 900_000

/** Bytes a scorecard takes in the file, where it sits two levels deeper than formatted alone. */
const sizeInFile = (card: ImportScorecard): number => {
  const text = formatJson(card)
  let lines = 0
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) lines++
  return text.length + 4 * lines
}

const chunkScorecards = (): ReadonlyArray<ReadonlyArray<ImportScorecard>> => {
  const chunks: Array<Array<ImportScorecard>> = []
  let current: Array<ImportScorecard> = []
  let size = 0
  for (const spec of DemoSpecs) {
    const cards = scorecardsOf(spec)
    const bytes = cards.reduce((n, c) => n + sizeInFile(c), 0)
    if (current.length > 0 && size + bytes > MaxScorecardFileBytes) {
      chunks.push(current)
      current = []
      size = 0
    }
    current.push(...cards)
    size += bytes
  }
  if (current.length > 0) chunks.push(current)
  return chunks
}

/** Where editors find the format's JSON Schema, relative to packages/demo-data/data/. */
const SchemaHint = "../../../docs/import-format.schema.json"

const file = (content: Omit<ImportFile, "format" | "$schema">): ImportFile => ({
  $schema: SchemaHint,
  format: ImportFormatVersion,
  ...content
})

export const buildDemoFiles = (): ReadonlyArray<DemoFile> => {
  const entities: ReadonlyArray<ImportEntity> = DemoSpecs.map(importEntityOf)
  return [
    {
      name: "01-rubric.json",
      content: file({
        description:
          "Demo rubric: the question catalogue of all seven entity types, with rubric criteria, in canonical " +
          "order. Bridge questions are the 62-question catalogue.",
        questions: RubricQuestions
      })
    },
    {
      name: "02-entities.json",
      content: file({
        description:
          "Demo entities of all seven types. Names are real projects; every score, grade and figure attached " +
          "to them is illustrative demo data, not a real rating.",
        entities
      })
    },
    ...chunkScorecards().map((scorecards, i) => ({
      name: `03-scorecards-${String(i + 1).padStart(2, "0")}.json`,
      content: file({
        description:
          "Demo draft scorecards (several versions per entity). Figures are not imported: the scoring core " +
          "computes them when a version is published.",
        scorecards
      })
    })),
    {
      name: "04-history-and-publications.json",
      content: file({
        description:
          "Demo rating history that predates the service (migrated entries), and the publish acts that " +
          "replay the drafts into published versions across 2026, oldest first.",
        history: historyOf(),
        publications: demoPublications()
      })
    },
    {
      name: "05-incidents.json",
      content: file({
        description:
          "Fictional hack-incident reports for the demo, in ingest order (one source's claim per report). " +
          "No incident here happened.",
        incidents: DemoIncidentReports
      })
    },
    {
      name: "06-quantum-sample.json",
      content: file({
        description:
          "SAMPLE DATA, not LayerQu's figures: a made-up quantum-readiness snapshot in the upstream row " +
          "format, for the demo only. A few rows are malformed on purpose and are skipped (rows_skipped).",
        quantum_snapshot: { as_of: QuantumAsOf, sample: true, rows: QuantumSampleRows }
      })
    }
  ]
}

/** The entity id of a demo entity by type and slug (tests and tools use it). */
export const demoIdOf = (type: string, slug: string): string => idOf(specOf(type, slug))
