/**
 * An answer: one question's score on one scorecard, which its domain's score
 * is the weighted mean of. A null score is excluded from its domain; a null
 * score with confidence not_applicable means the question was ruled out.
 */
import { Schema } from "effect"
import { QuestionId } from "./Question.ts"
import { NonNegativeNumber, PositiveNumber, Uuid } from "./Primitives.ts"

export const Confidences = ["high", "medium", "low", "not_applicable"] as const
export const Confidence = Schema.Literals(Confidences).annotate({
  description: "Confidence in the score; not_applicable (with a null score) means the question was ruled out"
})
export type Confidence = typeof Confidence.Type

/** What the score rules read; the per-question items of the questions body satisfy it too. */
export interface ScoredFields {
  readonly score: number | null
  readonly max_score: number
  readonly confidence: Confidence | null
}

export const scoreRules = Schema.makeFilter<ScoredFields>((a) => {
  const issues: Array<Schema.FilterIssue> = []
  if (a.score !== null && a.score > a.max_score) {
    issues.push({ path: ["score"], issue: `score (${a.score}) must not exceed max_score (${a.max_score})` })
  }
  if (a.confidence === "not_applicable" && a.score !== null) {
    issues.push({
      path: ["score"],
      issue: "confidence not_applicable means the question was ruled out, so its score must be null"
    })
  }
  return issues
})

export const AnswerScore = Schema.NullOr(NonNegativeNumber).annotate({
  description: "Score from 0 to max_score, or null: excluded from its domain, whose weights renormalise"
})

export const Answer = Schema.Struct({
  id: Uuid,
  question_id: QuestionId,
  domain: Schema.NullOr(Schema.String),
  score: AnswerScore,
  max_score: PositiveNumber,
  weight: PositiveNumber,
  confidence: Schema.NullOr(Confidence),
  response: Schema.NullOr(Schema.String),
  rationale: Schema.NullOr(Schema.String)
})
  .annotate({ description: "One question's answer and score on a scorecard" })
  .check(scoreRules)
  .annotate({ identifier: "Answer" })
export type Answer = typeof Answer.Type
