/**
 * Scorecards, as lists and the by-id view serve them. The list item carries grade, composites, the intrinsic (un-dragged)
 * pair and the tier-gated domain_scores and mvc_gates; the by-id detail adds
 * the entity's domain_weights and the full per-answer array.
 */
import { Schema } from "effect"
import { Grades } from "./Grade.ts"
import { Answer } from "./Answer.ts"
import { DomainWeights } from "./DomainWeights.ts"
import { EntityType } from "./EntityType.ts"
import { Fraction, IsoDateTime, Percent, PositiveInt, Uuid } from "./Primitives.ts"

/** Named LetterGrade so that it does not collide with the `Grade` type of GradeLadder. */
export const LetterGrade = Schema.Literals(Grades).annotate({
  description: "Letter grade on the published ladder (AAA, AA, A, BBB, B, C, D)"
})
export type LetterGrade = typeof LetterGrade.Type

export const ScorecardStatuses = ["draft", "published", "superseded"] as const
export const ScorecardStatus = Schema.Literals(ScorecardStatuses).annotate({
  description: "draft, published (the current rating) or superseded (an earlier published version)"
})
export type ScorecardStatus = typeof ScorecardStatus.Type

export const DomainScores = Schema.Record(Schema.String, Fraction).annotate({
  description: "Map from domain to its score as a fraction from 0 to 1. Domains that did not fire are absent."
})
export type DomainScores = typeof DomainScores.Type

export const MvcGates = Schema.Record(Schema.String, Schema.Boolean).annotate({
  description: "Chains only: map from minimum-viable-chain gate to whether the chain passes it"
})
export type MvcGates = typeof MvcGates.Type

/** Composites come out of floating-point sums; a drag below this is noise, not an increase. */
const DRAG_TOLERANCE = 1e-9

export interface DraggedPair {
  readonly composite_score: number | null
  readonly intrinsic_composite_score: number | null
}

/** Dependency drag can only reduce the headline figure: it never exceeds the intrinsic one. */
export const dragOnlyReduces = Schema.makeFilter<DraggedPair>((s) =>
  s.composite_score === null ||
  s.intrinsic_composite_score === null ||
  s.composite_score <= s.intrinsic_composite_score + DRAG_TOLERANCE
    ? undefined
    : {
        path: ["composite_score"],
        issue:
          `composite_score (${s.composite_score}) must not exceed intrinsic_composite_score ` +
          `(${s.intrinsic_composite_score}): dependency drag only reduces the headline`
      }
)

const mvcGatesOnlyOnChains = Schema.makeFilter<{
  readonly entity_type: EntityType
  readonly mvc_gates: { readonly [gate: string]: boolean } | null
}>((s) =>
  s.entity_type === "chain" || s.mvc_gates === null
    ? undefined
    : { path: ["mvc_gates"], issue: `mvc_gates is populated for chains only, not for a ${s.entity_type}` }
)

export const ScorecardFields = {
  id: Uuid,
  entity_id: Uuid,
  entity_type: EntityType,
  status: ScorecardStatus,
  scorecard_version: PositiveInt.annotate({
    description: "Version number of the entity's scorecard, from 1"
  }),
  grade: Schema.NullOr(LetterGrade),
  letter_grade: Schema.NullOr(LetterGrade),
  composite_score: Schema.NullOr(Percent).annotate({
    description: "Headline composite, 0-100, after dependency drag; null when unrated"
  }),
  intrinsic_composite_score: Schema.NullOr(Percent).annotate({
    description: "Composite before dependency drag, 0-100"
  }),
  intrinsic_letter_grade: Schema.NullOr(LetterGrade).annotate({
    description: "Grade of the intrinsic composite, before dependency drag"
  }),
  largest_drag_hint: Schema.NullOr(Schema.String).annotate({
    description:
      'The dependency that drags the headline most (for example "chain: ethereum"); ' +
      '"largest drag: <type>" when the public cannot read that dependency; or null'
  }),
  has_unrated_dependencies: Schema.Boolean,
  domain_scores: Schema.NullOr(DomainScores).annotate({
    description: "Per-domain fractions; null for anonymous and Free callers on list routes"
  }),
  mvc_gates: Schema.NullOr(MvcGates).annotate({
    description: "Minimum-viable-chain gates; chains only, and null for anonymous and Free callers"
  }),
  last_rated_at: Schema.NullOr(IsoDateTime),
  scorecard_published_at: Schema.NullOr(IsoDateTime)
}

export const Scorecard = Schema.Struct(ScorecardFields)
  .annotate({
    description:
      "A scorecard as listed on /{type}/{id_or_slug}/scorecards: grade, composites and the intrinsic pair. " +
      "Per-answer detail is absent from list routes."
  })
  .check(dragOnlyReduces, mvcGatesOnlyOnChains)
  .annotate({ identifier: "Scorecard" })
export type Scorecard = typeof Scorecard.Type

export const ScorecardDetail = Schema.Struct({
  ...ScorecardFields,
  domain_weights: DomainWeights,
  answers: Schema.Array(Answer).annotate({ description: "Every answer of the scorecard, in canonical order" })
})
  .annotate({
    description:
      "One scorecard by UUID (Enterprise): the list fields plus domain_weights and the full answers"
  })
  .check(dragOnlyReduces, mvcGatesOnlyOnChains)
  .annotate({ identifier: "ScorecardDetail" })
export type ScorecardDetail = typeof ScorecardDetail.Type
