/**
 * Response bodies of the read API that are not a bare resource: the list
 * wrapper, the per-entity data endpoints (domains, history, questions, rubric,
 * evidence) and methodology. Where api-facts shows a body, field names match it
 * exactly, because existing clients read them. The descriptions here become the
 * OpenAPI document.
 */
import { Schema } from "effect"
import { Grades } from "./Grade.ts"
import { AnswerScore, Confidence, scoreRules } from "./Answer.ts"
import { DomainWeights } from "./DomainWeights.ts"
import { EntityType, EntityTypes } from "./EntityType.ts"
import {
  IsoDateTime,
  NonNegativeInt,
  Percent,
  PositiveInt,
  PositiveNumber,
  Slug,
  Uuid
} from "./Primitives.ts"
import { DomainName, QuestionId, RubricEntry } from "./Question.ts"
import { DomainScores, dragOnlyReduces, LetterGrade } from "./Scorecard.ts"

/**
 * The list wrapper: one page of items and the count of all matches under the
 * same filter. No check ties total to the page: the count and the page are
 * separate queries, and a row written between them must not turn a read into a
 * failed encode.
 */
export const ListOf = <S extends Schema.Top>(
  item: S,
  annotations?: { readonly identifier?: string; readonly description?: string }
) =>
  Schema.Struct({
    items: Schema.Array(item),
    total: NonNegativeInt.annotate({ description: "Number of matches across all pages" })
  }).annotate({
    ...(annotations?.identifier === undefined ? {} : { identifier: annotations.identifier }),
    description: annotations?.description ?? "One page of items and the total number of matches"
  })

export const EntityBrief = Schema.Struct({ slug: Slug, name: Schema.String }).annotate({
  identifier: "EntityBrief",
  description: "The entity a per-entity body describes: its slug and name"
})
export type EntityBrief = typeof EntityBrief.Type

export const DomainsBody = Schema.Struct({
  entity: EntityBrief,
  composite_score: Schema.NullOr(Percent),
  grade: Schema.NullOr(LetterGrade),
  letter_grade: Schema.NullOr(LetterGrade),
  intrinsic_composite_score: Schema.NullOr(Percent),
  intrinsic_letter_grade: Schema.NullOr(LetterGrade),
  largest_drag_hint: Schema.NullOr(Schema.String),
  has_unrated_dependencies: Schema.Boolean,
  domain_scores: DomainScores,
  last_rated_at: Schema.NullOr(IsoDateTime)
})
  .annotate({
    description:
      "Per-domain breakdown (Pro) of the latest published scorecard: domain scores are 0-1 fractions, " +
      "composites 0-100. An unrated entity has null figures and domain_scores {}."
  })
  .check(dragOnlyReduces)
  .annotate({ identifier: "DomainsBody" })
export type DomainsBody = typeof DomainsBody.Type

export const HistoryEntry = Schema.Struct({
  scorecard_id: Uuid,
  scorecard_version: PositiveInt,
  grade: Schema.NullOr(LetterGrade),
  letter_grade: Schema.NullOr(LetterGrade),
  composite_score: Schema.NullOr(Percent),
  intrinsic_composite_score: Schema.NullOr(Percent),
  intrinsic_letter_grade: Schema.NullOr(LetterGrade),
  published_at: IsoDateTime,
  reasoning: Schema.String.annotate({
    description: "Why the rating was set or changed (re-rating is a human decision)"
  }),
  changed_by: Schema.optionalKey(Schema.String)
})
  .annotate({ description: "One published version of the entity's rating" })
  .check(dragOnlyReduces)
  .annotate({ identifier: "HistoryEntry" })
export type HistoryEntry = typeof HistoryEntry.Type

export const HistoryBody = Schema.Struct({
  entity: EntityBrief,
  items: Schema.Array(HistoryEntry),
  total: NonNegativeInt
}).annotate({
  identifier: "HistoryBody",
  description:
    "Full rating history with reasoning (Pro), newest version first; empty until the entity is rated"
})
export type HistoryBody = typeof HistoryBody.Type

const ScorecardVersionOrNull = Schema.NullOr(PositiveInt).annotate({
  description: "Version of the scorecard the figures come from; null when the entity has no scorecard yet"
})
const PublishedAtOrNull = Schema.NullOr(IsoDateTime).annotate({
  description: "When that scorecard was published; null when the entity has no scorecard yet"
})

export const QuestionScore = Schema.Struct({
  question_id: QuestionId,
  domain: DomainName,
  text: Schema.String,
  weight: PositiveNumber,
  max_score: PositiveNumber,
  score: AnswerScore,
  confidence: Schema.NullOr(Confidence),
  response: Schema.NullOr(Schema.String),
  rationale: Schema.NullOr(Schema.String)
})
  .annotate({
    description: "One question's score and rationale, with its weight"
  })
  .check(scoreRules)
  .annotate({ identifier: "QuestionScore" })
export type QuestionScore = typeof QuestionScore.Type

export const QuestionsBody = Schema.Struct({
  entity: EntityBrief,
  scorecard_version: ScorecardVersionOrNull,
  scorecard_published_at: PublishedAtOrNull,
  domain_weights: DomainWeights,
  items: Schema.Array(QuestionScore)
}).annotate({
  identifier: "QuestionsBody",
  description:
    "Per-question scores and rationale (Enterprise) in canonical order, with per-question weights and the " +
    "entity's domain_weights. Before a first scorecard every question is listed with a null score."
})
export type QuestionsBody = typeof QuestionsBody.Type

export const RubricBody = Schema.Struct({
  entity: EntityBrief,
  domain_weights: DomainWeights,
  items: Schema.Array(RubricEntry)
}).annotate({
  identifier: "RubricBody",
  description: "Per-question rubric criteria (Enterprise), with per-question weights and domain_weights"
})
export type RubricBody = typeof RubricBody.Type

export const EvidenceItem = Schema.Struct({
  kind: Schema.String.annotate({ description: "Kind of evidence (for example audit, docs, onchain)" }),
  url: Schema.NullOr(Schema.String),
  excerpt: Schema.NullOr(Schema.String),
  collected_at: Schema.NullOr(IsoDateTime)
}).annotate({ identifier: "EvidenceItem", description: "One piece of evidence behind an answer" })
export type EvidenceItem = typeof EvidenceItem.Type

export const EvidenceEntry = Schema.Struct({
  question_id: QuestionId,
  domain: DomainName,
  weight: PositiveNumber,
  evidence: Schema.Array(EvidenceItem),
  reasoning: Schema.NullOr(Schema.String).annotate({
    description: "The reasoning trail from evidence to score"
  })
}).annotate({ identifier: "EvidenceEntry", description: "Evidence and reasoning trail of one question" })
export type EvidenceEntry = typeof EvidenceEntry.Type

export const EvidenceBody = Schema.Struct({
  entity: EntityBrief,
  scorecard_version: ScorecardVersionOrNull,
  scorecard_published_at: PublishedAtOrNull,
  domain_weights: DomainWeights,
  items: Schema.Array(EvidenceEntry)
}).annotate({
  identifier: "EvidenceBody",
  description: "Evidence and reasoning trails (Enterprise), with per-question weights and domain_weights"
})
export type EvidenceBody = typeof EvidenceBody.Type

export const MethodologyEntityType = Schema.Struct({
  type: EntityType,
  questions: NonNegativeInt,
  domains: Schema.Array(DomainName),
  domain_count: NonNegativeInt
})
  .annotate({ description: "Question count and base domains of one entity type" })
  .check(
    Schema.makeFilter((t) =>
      t.domain_count === t.domains.length
        ? undefined
        : {
            path: ["domain_count"],
            issue: `domain_count (${t.domain_count}) must equal the ${t.domains.length} domains listed`
          }
    )
  )
export type MethodologyEntityType = typeof MethodologyEntityType.Type

export const GradeScaleBand = Schema.Struct({
  grade: LetterGrade,
  min_score: Percent,
  description: Schema.String
}).annotate({ description: "A grade and the inclusive minimum composite (after rounding) that earns it" })
export type GradeScaleBand = typeof GradeScaleBand.Type

const methodologyRules = Schema.makeFilter<{
  readonly total_questions: number
  readonly entity_types: ReadonlyArray<{ readonly type: EntityType; readonly questions: number }>
  readonly grade_scale: ReadonlyArray<{ readonly grade: string; readonly min_score: number }>
}>((m) => {
  const issues: Array<Schema.FilterIssue> = []
  const sum = m.entity_types.reduce((acc, t) => acc + t.questions, 0)
  if (sum !== m.total_questions) {
    issues.push({
      path: ["total_questions"],
      issue: `total_questions (${m.total_questions}) must equal the sum over types (${sum})`
    })
  }
  const listed = m.entity_types.map((t) => t.type)
  const missing = EntityTypes.filter((t) => !listed.includes(t))
  if (missing.length > 0 || listed.length !== EntityTypes.length) {
    issues.push({
      path: ["entity_types"],
      issue: `entity_types must list each of the seven types once (missing: ${missing.join(", ") || "none"})`
    })
  }
  // The scale is the ladder the core grades with, so every score in 0-100 must land in exactly one band.
  const scale = m.grade_scale
  const inLadderOrder = scale.map((b) => b.grade).join() === Grades.join()
  const descending = scale.every((band, i) => i === 0 || band.min_score < scale[i - 1]!.min_score)
  if (!inLadderOrder || !descending || scale.at(-1)?.min_score !== 0) {
    issues.push({
      path: ["grade_scale"],
      issue: "grade_scale must list every grade from highest to lowest, ending at min_score 0"
    })
  }
  return issues
})

export const MethodologyBody = Schema.Struct({
  name: Schema.String,
  version: Schema.String,
  total_questions: NonNegativeInt,
  entity_types: Schema.Array(MethodologyEntityType),
  grade_scale: Schema.Array(GradeScaleBand),
  grade_rounding: Schema.String,
  attribution: Schema.String.annotate({
    description: "How free and anonymous users must attribute the data"
  }),
  methodology_url: Schema.String
})
  .annotate({
    description:
      "Methodology metadata: question and domain counts per entity type, and the grade ladder the scoring " +
      "core assigns grades with"
  })
  .check(methodologyRules)
  .annotate({ identifier: "MethodologyBody" })
export type MethodologyBody = typeof MethodologyBody.Type
