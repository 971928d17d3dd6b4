/**
 * The next re-rating of an entity, as the multi-process tests publish it
 * round after round: a draft made from its latest published scorecard, one
 * version up, with fresh ids, every computed figure cleared (the Publisher
 * scores it) and its first answer scored anew, so that publishing it moves
 * the composite.
 */
import { randomUUID } from "node:crypto"
import type { EntityType } from "@ratings/domain/model/EntityType"
import { ScorecardRepository, type StoredScorecard } from "@ratings/domain/ports/ScorecardRepository"
import { Effect, Option } from "effect"

/** `from` as the next draft: version + 1, figures cleared, new ids, the first answer scored `firstScore`. */
export const nextDraft = (from: StoredScorecard, firstScore: number): StoredScorecard => ({
  ...from,
  id: randomUUID(),
  status: "draft",
  scorecard_version: from.scorecard_version + 1,
  grade: null,
  letter_grade: null,
  composite_score: null,
  intrinsic_composite_score: null,
  intrinsic_letter_grade: null,
  largest_drag_hint: null,
  domain_scores: null,
  scorecard_published_at: null,
  answers: from.answers.map((a, i) => ({
    ...a,
    id: randomUUID(),
    score: i === 0 ? firstScore : a.score
  }))
})

/** Saves the next draft of the entity's latest published scorecard (which must exist); the draft saved. */
export const draftNextRating = (entityType: EntityType, entityId: string, firstScore: number) =>
  Effect.gen(function* () {
    const scorecards = yield* ScorecardRepository
    const from = Option.getOrThrow(yield* scorecards.latest(entityType, entityId, "published"))
    const draft = nextDraft(from, firstScore)
    yield* scorecards.saveDraft(draft)
    return draft
  })
