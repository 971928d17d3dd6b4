/**
 * The scorecard tables at the adapter boundary: the column lists the reads
 * select, the schemas their rows decode with (the domain's own schemas where a
 * column holds a domain value), and the mappings between rows and the domain's
 * objects both ways.
 */
import { EntityType } from "@ratings/domain/model/EntityType"
import { DomainWeights } from "@ratings/domain/model/DomainWeights"
import { Confidence } from "@ratings/domain/model/Answer"
import { EvidenceItem } from "@ratings/domain/model/Responses"
import {
  DomainScores,
  LetterGrade,
  MvcGates,
  type Scorecard,
  ScorecardStatus
} from "@ratings/domain/model/Scorecard"
import type { HistoryEntryRecord, StoredScorecard } from "@ratings/domain/ports/ScorecardRepository"
import { PgTypes } from "@effect/sql-pg"
import { Result, Schema } from "effect"
import { isoText, isoTextOrNull } from "../PgRows.ts"

export const ListColumns = `s.id, s.entity_id, s.entity_type, s.status, s.scorecard_version, s.grade, s.letter_grade,
  s.composite_score, s.intrinsic_composite_score, s.intrinsic_letter_grade, s.largest_drag_hint,
  s.has_unrated_dependencies, s.domain_scores, s.mvc_gates, s.last_rated_at, s.scorecard_published_at`

/** The answers and evidence as the domain holds them, built by the same expressions that compare on save. */
export const AnswersJson = `coalesce((SELECT jsonb_agg(jsonb_build_object('id', a.id, 'question_id', a.question_id,
    'domain', a.domain, 'score', a.score, 'max_score', a.max_score, 'weight', a.weight,
    'confidence', a.confidence, 'response', a.response, 'rationale', a.rationale) ORDER BY a.position)
  FROM answers a WHERE a.scorecard_id = s.id), '[]'::jsonb)`
export const EvidenceJson = `coalesce((SELECT jsonb_agg(jsonb_build_object('question_id', e.question_id,
    'evidence', e.items, 'reasoning', e.reasoning) ORDER BY e.position)
  FROM evidence e WHERE e.scorecard_id = s.id), '[]'::jsonb)`

export const DetailColumns = `${ListColumns}, s.domain_weights, s.dependencies, ${AnswersJson} AS answers,
  ${EvidenceJson} AS evidence`

export const BaseColumns = `${ListColumns}, s.domain_weights, s.dependencies`

/** The scorecard row as `json_to_recordset` reads it from the domain's objects (answers and evidence left out). */
export const RowRecord = `r(id uuid, entity_type text, entity_id uuid, scorecard_version int, status text, grade text,
  letter_grade text, composite_score float8, intrinsic_composite_score float8, intrinsic_letter_grade text,
  largest_drag_hint text, has_unrated_dependencies boolean, domain_scores jsonb, mvc_gates jsonb,
  domain_weights jsonb, dependencies jsonb, last_rated_at timestamptz, scorecard_published_at timestamptz)`

/**
 * Uuid columns are Postgres' own type (always the canonical lowercase text),
 * so they decode as strings; enumerations and maps decode with the domain's
 * schemas; figures are numbers (float8, int) as stored.
 */
const NullOrNumber = Schema.NullOr(Schema.Number)
const NullOrGrade = Schema.NullOr(LetterGrade)
/** Timestamps are checked as Dates and spelled when the value is built (PgRows.ts `isoText`). */
const NullOrDate = Schema.NullOr(Schema.Date)

export const ScorecardRow = Schema.Struct({
  id: Schema.String,
  entity_id: Schema.String,
  entity_type: EntityType,
  status: ScorecardStatus,
  scorecard_version: Schema.Number,
  grade: NullOrGrade,
  letter_grade: NullOrGrade,
  composite_score: NullOrNumber,
  intrinsic_composite_score: NullOrNumber,
  intrinsic_letter_grade: NullOrGrade,
  largest_drag_hint: Schema.NullOr(Schema.String),
  has_unrated_dependencies: Schema.Boolean,
  domain_scores: Schema.NullOr(DomainScores),
  mvc_gates: Schema.NullOr(MvcGates),
  last_rated_at: NullOrDate,
  scorecard_published_at: NullOrDate
})
export type ScorecardRow = typeof ScorecardRow.Type

const Dependency = Schema.Struct({ entity_type: EntityType, slug: Schema.String, exposure: Schema.Number })

/** A scorecard row with its own jsonb columns, before answers and evidence (read as rows). */
export const BaseRow = Schema.Struct({
  ...ScorecardRow.fields,
  domain_weights: DomainWeights,
  dependencies: Schema.Array(Dependency)
})
export type BaseRow = typeof BaseRow.Type

export const AnswerRow = Schema.Struct({
  scorecard_id: Schema.String,
  id: Schema.String,
  question_id: Schema.String,
  domain: Schema.NullOr(Schema.String),
  score: NullOrNumber,
  max_score: Schema.Number,
  weight: Schema.Number,
  confidence: Schema.NullOr(Confidence),
  response: Schema.NullOr(Schema.String),
  rationale: Schema.NullOr(Schema.String)
})
export type AnswerRow = typeof AnswerRow.Type

const EvidenceItems = Schema.Array(EvidenceItem)

export const EvidenceRow = Schema.Struct({
  scorecard_id: Schema.String,
  question_id: Schema.String,
  items: EvidenceItems,
  reasoning: Schema.NullOr(Schema.String)
})
export type EvidenceRow = typeof EvidenceRow.Type

const { scorecard_id: _a, ...AnswerFieldsOf } = AnswerRow.fields
const { scorecard_id: _e, items: _i, ...EvidenceFieldsOf } = EvidenceRow.fields

/** A scorecard row with its answers and evidence built as jsonb by the statement (DetailColumns). */
export const DetailRow = Schema.Struct({
  ...BaseRow.fields,
  answers: Schema.Array(Schema.Struct(AnswerFieldsOf)),
  evidence: Schema.Array(Schema.Struct({ ...EvidenceFieldsOf, evidence: EvidenceItems }))
})
export type DetailRow = typeof DetailRow.Type

export const HistoryRow = Schema.Struct({
  scorecard_id: Schema.String,
  scorecard_version: Schema.Number,
  grade: NullOrGrade,
  letter_grade: NullOrGrade,
  composite_score: NullOrNumber,
  intrinsic_composite_score: NullOrNumber,
  intrinsic_letter_grade: NullOrGrade,
  published_at: Schema.Date,
  reasoning: Schema.String,
  changed_by: Schema.NullOr(Schema.String)
})
export type HistoryRow = typeof HistoryRow.Type

type AnswerOf = StoredScorecard["answers"][number]
export const AnswerFields = [
  "id",
  "question_id",
  "domain",
  "score",
  "max_score",
  "weight",
  "confidence",
  "response",
  "rationale"
] as const satisfies ReadonlyArray<keyof AnswerOf>

/** The Postgres type (OID) of each of AnswerFields' columns. */
export const AnswerOids: ReadonlyArray<number> = [
  PgTypes.OID.uuid,
  PgTypes.OID.text,
  PgTypes.OID.text,
  PgTypes.OID.float8,
  PgTypes.OID.float8,
  PgTypes.OID.float8,
  PgTypes.OID.text,
  PgTypes.OID.text,
  PgTypes.OID.text
]

export const toScorecard = (row: ScorecardRow): Scorecard => ({
  id: row.id,
  entity_id: row.entity_id,
  entity_type: row.entity_type,
  status: row.status,
  scorecard_version: row.scorecard_version,
  grade: row.grade,
  letter_grade: row.letter_grade,
  composite_score: row.composite_score,
  intrinsic_composite_score: row.intrinsic_composite_score,
  intrinsic_letter_grade: row.intrinsic_letter_grade,
  largest_drag_hint: row.largest_drag_hint,
  has_unrated_dependencies: row.has_unrated_dependencies,
  domain_scores: row.domain_scores,
  mvc_gates: row.mvc_gates,
  last_rated_at: isoTextOrNull(row.last_rated_at),
  scorecard_published_at: isoTextOrNull(row.scorecard_published_at)
})

export const toStored = (row: DetailRow): StoredScorecard => ({
  ...toScorecard(row),
  domain_weights: row.domain_weights,
  answers: row.answers,
  dependencies: row.dependencies,
  evidence: row.evidence
})

export const toHistory = (row: HistoryRow): HistoryEntryRecord => ({
  scorecard_id: row.scorecard_id,
  scorecard_version: row.scorecard_version,
  grade: row.grade,
  letter_grade: row.letter_grade,
  composite_score: row.composite_score,
  intrinsic_composite_score: row.intrinsic_composite_score,
  intrinsic_letter_grade: row.intrinsic_letter_grade,
  published_at: isoText(row.published_at),
  reasoning: row.reasoning,
  ...(row.changed_by === null ? {} : { changed_by: row.changed_by })
})

/**
 * The scorecard's own columns (RowRecord's), named one by one: its answers
 * and evidence have tables, and are not read (an import's scorecard may
 * build its answers afresh on each read).
 */
export const rowOf = (s: StoredScorecard) => ({
  id: s.id,
  entity_type: s.entity_type,
  entity_id: s.entity_id,
  scorecard_version: s.scorecard_version,
  status: s.status,
  grade: s.grade,
  letter_grade: s.letter_grade,
  composite_score: s.composite_score,
  intrinsic_composite_score: s.intrinsic_composite_score,
  intrinsic_letter_grade: s.intrinsic_letter_grade,
  largest_drag_hint: s.largest_drag_hint,
  has_unrated_dependencies: s.has_unrated_dependencies,
  domain_scores: s.domain_scores,
  mvc_gates: s.mvc_gates,
  domain_weights: s.domain_weights,
  dependencies: s.dependencies,
  last_rated_at: s.last_rated_at,
  scorecard_published_at: s.scorecard_published_at
})

/** Exactly the keys AnswersJson builds, so that stored and incoming content compare as jsonb. */
export const answersOf = (s: StoredScorecard) =>
  s.answers.map((a) => ({
    id: a.id,
    question_id: a.question_id,
    domain: a.domain,
    score: a.score,
    max_score: a.max_score,
    weight: a.weight,
    confidence: a.confidence,
    response: a.response,
    rationale: a.rationale
  }))

export const evidenceOf = (s: StoredScorecard) =>
  s.evidence.map((e) => ({ question_id: e.question_id, evidence: e.evidence, reasoning: e.reasoning }))

export const historyRowOf = (entityId: string, h: HistoryEntryRecord) => ({
  entity_id: entityId,
  scorecard_version: h.scorecard_version,
  scorecard_id: h.scorecard_id,
  grade: h.grade,
  letter_grade: h.letter_grade,
  composite_score: h.composite_score,
  intrinsic_composite_score: h.intrinsic_composite_score,
  intrinsic_letter_grade: h.intrinsic_letter_grade,
  published_at: h.published_at,
  reasoning: h.reasoning,
  changed_by: h.changed_by ?? null
})

export const chunksOf = <A>(xs: ReadonlyArray<A>, size: number): Array<ReadonlyArray<A>> => {
  const out: Array<ReadonlyArray<A>> = []
  for (let i = 0; i < xs.length; i += size) out.push(xs.slice(i, i + size))
  return out
}

/**
 * A one-dimensional array parameter of elements of type `oid`, bound in
 * Postgres' binary format (element by element, null as NULL) rather than as
 * an array literal the server would parse.
 */
export const typedArray = (values: ReadonlyArray<string | number | null>, oid: number): PgTypes.Parameter =>
  Result.getOrThrow(PgTypes.array(values, oid))

/**
 * A Postgres array literal: text quoted and escaped, numbers as JavaScript
 * prints them (float8in reads back the same double), null as NULL.
 */
export const arrayLiteral = (values: ReadonlyArray<string | number | null>): string => {
  const parts = new Array<string>(values.length)
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!
    parts[i] =
      v === null
        ? "NULL"
        : typeof v === "number"
          ? String(v)
          : v.includes('"') || v.includes("\\")
            ? `"${v.replace(/[\\"]/g, "\\$&")}"`
            : `"${v}"`
  }
  return `{${parts.join(",")}}`
}
