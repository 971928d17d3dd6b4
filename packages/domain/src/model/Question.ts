/**
 * Rubric questions: the catalogue entry of each question (its domain, weight,
 * maximum score, criteria text and canonical position), and the rubric entry
 * the rubric endpoint serves. For chains a question may decide one of the
 * minimum-viable-chain gates reported in `mvc_gates`.
 */
import { Schema } from "effect"
import { EntityType } from "./EntityType.ts"
import { NonNegativeInt, NonNegativeNumber, PositiveNumber } from "./Primitives.ts"

export const QuestionId = Schema.String.annotate({
  description: "Question id, stable across scorecard versions (for example PROT-SEC-01)"
}).check(Schema.isNonEmpty())

export const DomainName = Schema.String.annotate({
  description: "Scoring domain (for example security, governance)"
}).check(Schema.isNonEmpty())

export const RubricLevel = Schema.Struct({
  score: NonNegativeNumber,
  description: Schema.String
}).annotate({
  identifier: "RubricLevel",
  description: "One level of a question's rubric: the score it earns and what an entity must show for it"
})
export type RubricLevel = typeof RubricLevel.Type

export const Criteria = Schema.Array(RubricLevel).annotate({
  description: "Rubric text of the question, one entry per score level"
})

const criteriaWithinMax = Schema.makeFilter<{
  readonly max_score: number
  readonly criteria: ReadonlyArray<RubricLevel>
}>((q) => {
  const issues: Array<Schema.FilterIssue> = []
  q.criteria.forEach((level, i) => {
    if (level.score > q.max_score) {
      issues.push({
        path: ["criteria", i, "score"],
        issue: `rubric level score (${level.score}) must not exceed max_score (${q.max_score})`
      })
    }
  })
  return issues
})

const gateOnlyOnChains = Schema.makeFilter<{
  readonly entity_type: EntityType
  readonly gate?: string | null
}>((q) =>
  q.entity_type === "chain" || q.gate === undefined || q.gate === null
    ? undefined
    : {
        path: ["gate"],
        issue: `only chain questions decide a minimum-viable-chain gate, not ${q.entity_type}`
      }
)

export const Question = Schema.Struct({
  id: QuestionId,
  entity_type: EntityType,
  domain: DomainName,
  text: Schema.String,
  weight: PositiveNumber.annotate({ description: "Weight of the question within its domain (> 0)" }),
  max_score: PositiveNumber,
  criteria: Criteria,
  position: NonNegativeInt.annotate({ description: "Position in the type's canonical question order" }),
  gate: Schema.optionalKey(
    Schema.NullOr(Schema.String).annotate({
      description: "Chains only: the minimum-viable-chain gate this question decides, or null"
    })
  )
})
  .annotate({ description: "A question of the rubric catalogue" })
  .check(criteriaWithinMax, gateOnlyOnChains)
  .annotate({ identifier: "Question" })
export type Question = typeof Question.Type

export const RubricEntry = Schema.Struct({
  question_id: QuestionId,
  domain: DomainName,
  text: Schema.String,
  weight: PositiveNumber,
  max_score: PositiveNumber,
  criteria: Criteria
})
  .annotate({
    description: "A question's rubric criteria with its per-question weight and maximum score"
  })
  .check(criteriaWithinMax)
  .annotate({ identifier: "RubricEntry" })
export type RubricEntry = typeof RubricEntry.Type
