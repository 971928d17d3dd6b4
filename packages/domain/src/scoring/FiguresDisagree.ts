/**
 * The check that a draft's figures are the core's (spec part 1: the scoring
 * core is the authority): a stored figure that is not null is a claim, and it
 * must equal the figure computed from the answers. Publishing refuses a draft
 * that fails it, and an import reports it where the draft is defined.
 */
import { Schema } from "effect"
import type { ScoreResult } from "./ScoreEntity.ts"

/** A draft carried a figure the core does not reproduce from its answers. */
export class FiguresDisagree extends Schema.TaggedError<FiguresDisagree>()("FiguresDisagree", {
  field: Schema.String,
  stored: Schema.Unknown,
  computed: Schema.Unknown,
  message: Schema.String
}) {}

const checkedFields = [
  "composite_score",
  "grade",
  "letter_grade",
  "intrinsic_composite_score",
  "intrinsic_letter_grade"
] as const

/** The figures of a draft that are checked, as stored (null: no claim). */
export type ClaimedFigures = { readonly [F in (typeof checkedFields)[number]]: string | number | null }

/** The first stored figure that disagrees with the computed one (null stored figures are not claims). */
export const disagreement = (draft: ClaimedFigures, computed: ScoreResult): FiguresDisagree | undefined => {
  for (const field of checkedFields) {
    const stored = draft[field]
    if (stored !== null && stored !== computed[field]) {
      return new FiguresDisagree({
        field,
        stored,
        computed: computed[field],
        message: `the draft's ${field} (${stored}) disagrees with the score computed from its answers (${computed[field]})`
      })
    }
  }
  return undefined
}
