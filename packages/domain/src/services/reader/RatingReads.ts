/**
 * The per-entity rating reads of RatingsReader (spec part 4): domains,
 * history, questions, rubric, evidence and one scorecard by id. Each is gated
 * by its capability, then reads the entity the caller may see and its latest
 * published scorecard.
 */
import { Effect, Option } from "effect"
import type { Caller } from "../../model/Caller.ts"
import type { EntityType } from "../../model/EntityType.ts"
import { canonicalTimestamp } from "../../model/Primitives.ts"
import {
  brief,
  dragHintsFor,
  gate,
  latestPublished,
  NotFound,
  questionsOf,
  type ReaderPorts,
  ratedBySlug,
  weightsOf
} from "./ReadAccess.ts"

/**
 * The entity the caller may see (else NotFound) and its latest published
 * scorecard: read together (one round trip on Postgres) when the store can,
 * else in turn.
 */
const ratedWithLatest = (ports: ReaderPorts, caller: Caller, type: EntityType, slug: string) => {
  const together = ports.scorecards.entityWithLatestPublished
  return together === undefined
    ? Effect.gen(function* () {
        const record = yield* ratedBySlug(ports, caller, type, slug)
        return { record, card: yield* latestPublished(ports, type, record.id) }
      })
    : Effect.flatMap(together(type, slug), (found) =>
        Option.isSome(found.entity) && ports.projection.areScorecardsVisible(caller, found.entity.value)
          ? Effect.succeed({ record: found.entity.value, card: Option.getOrUndefined(found.latest) })
          : Effect.fail(new NotFound())
      )
}

/** The latest published figures and domain scores of an entity. */
export const domains = (ports: ReaderPorts, caller: Caller, type: EntityType, slug: string) =>
  Effect.gen(function* () {
    yield* gate(ports, caller, "domains")
    const { record, card } = yield* ratedWithLatest(ports, caller, type, slug)
    const hint = yield* dragHintsFor(ports, caller, [card?.largest_drag_hint ?? null])
    return {
      entity: brief(record),
      composite_score: card?.composite_score ?? null,
      grade: card?.grade ?? null,
      letter_grade: card?.letter_grade ?? null,
      intrinsic_composite_score: card?.intrinsic_composite_score ?? null,
      intrinsic_letter_grade: card?.intrinsic_letter_grade ?? null,
      largest_drag_hint: hint(card?.largest_drag_hint ?? null),
      has_unrated_dependencies: card?.has_unrated_dependencies ?? false,
      domain_scores: card?.domain_scores ?? {},
      last_rated_at: card?.last_rated_at ?? null
    }
  })

/**
 * The entity's publication history: the entity and its history read together
 * (one round trip on Postgres) when the store can, else in turn.
 */
export const history = (ports: ReaderPorts, caller: Caller, type: EntityType, slug: string) =>
  Effect.gen(function* () {
    yield* gate(ports, caller, "history")
    const together = ports.scorecards.entityWithHistory
    if (together !== undefined) {
      const found = yield* together(type, slug)
      if (Option.isNone(found.entity) || !ports.projection.areScorecardsVisible(caller, found.entity.value))
        return yield* new NotFound()
      return { entity: brief(found.entity.value), items: found.history, total: found.history.length }
    }
    const record = yield* ratedBySlug(ports, caller, type, slug)
    const items = yield* ports.scorecards.history(type, record.id)
    return { entity: brief(record), items, total: items.length }
  })

/** The type's questions with the latest published scorecard's answers. */
export const questions = (ports: ReaderPorts, caller: Caller, type: EntityType, slug: string) =>
  Effect.gen(function* () {
    yield* gate(ports, caller, "questions")
    const { record, card } = yield* ratedWithLatest(ports, caller, type, slug)
    const catalogue = yield* questionsOf(ports, type)
    const answers = new Map((card?.answers ?? []).map((a) => [a.question_id, a]))
    return {
      entity: brief(record),
      scorecard_version: card?.scorecard_version ?? null,
      scorecard_published_at: card?.scorecard_published_at ?? null,
      domain_weights: weightsOf(type, record, card),
      items: catalogue.map((q) => {
        const a = answers.get(q.id)
        return {
          question_id: q.id,
          domain: q.domain,
          text: q.text,
          weight: a?.weight ?? q.weight,
          max_score: a?.max_score ?? q.max_score,
          score: a?.score ?? null,
          confidence: a?.confidence ?? null,
          response: a?.response ?? null,
          rationale: a?.rationale ?? null
        }
      })
    }
  })

/** The type's questions with their scoring criteria, and the entity's domain weights. */
export const rubric = (ports: ReaderPorts, caller: Caller, type: EntityType, slug: string) =>
  Effect.gen(function* () {
    yield* gate(ports, caller, "rubric")
    const { record, card } = yield* ratedWithLatest(ports, caller, type, slug)
    const catalogue = yield* questionsOf(ports, type)
    return {
      entity: brief(record),
      domain_weights: weightsOf(type, record, card),
      items: catalogue.map((q) => ({
        question_id: q.id,
        domain: q.domain,
        text: q.text,
        weight: q.weight,
        max_score: q.max_score,
        criteria: q.criteria
      }))
    }
  })

/** The evidence and reasoning of the latest published scorecard, per question. */
export const evidence = (ports: ReaderPorts, caller: Caller, type: EntityType, slug: string) =>
  Effect.gen(function* () {
    yield* gate(ports, caller, "evidence")
    const { record, card } = yield* ratedWithLatest(ports, caller, type, slug)
    const catalogue = yield* questionsOf(ports, type)
    const byQuestion = new Map((card?.evidence ?? []).map((e) => [e.question_id, e]))
    const answers = new Map((card?.answers ?? []).map((a) => [a.question_id, a]))
    return {
      entity: brief(record),
      scorecard_version: card?.scorecard_version ?? null,
      scorecard_published_at: card?.scorecard_published_at ?? null,
      domain_weights: weightsOf(type, record, card),
      items: catalogue.map((q) => ({
        question_id: q.id,
        domain: q.domain,
        weight: answers.get(q.id)?.weight ?? q.weight,
        // collected_at is kept as the import gave it; it is served in the service's form.
        evidence: (byQuestion.get(q.id)?.evidence ?? []).map((e) =>
          e.collected_at === null ? e : { ...e, collected_at: canonicalTimestamp(e.collected_at) }
        ),
        reasoning: byQuestion.get(q.id)?.reasoning ?? null
      }))
    }
  })

/** One scorecard by id, when its entity's scorecards are visible (drafts to admins only), or NotFound. */
export const scorecardById = (ports: ReaderPorts, caller: Caller, type: EntityType, scorecardId: string) =>
  Effect.gen(function* () {
    yield* gate(ports, caller, "scorecard_by_id")
    const found = yield* ports.scorecards.findById(type, scorecardId)
    if (Option.isNone(found)) return yield* new NotFound()
    const card = found.value
    const owner = yield* ports.entities.findById(type, card.entity_id)
    const visible =
      Option.isSome(owner) &&
      ports.projection.areScorecardsVisible(caller, owner.value) &&
      (ports.projection.isAdmin(caller) || card.status !== "draft")
    if (!visible) return yield* new NotFound()
    const { dependencies: _d, evidence: _e, ...detail } = card
    const hint = yield* dragHintsFor(ports, caller, [detail.largest_drag_hint])
    return {
      ...detail,
      largest_drag_hint: hint(detail.largest_drag_hint),
      mvc_gates: ports.projection.hasMvcGates(type) ? detail.mvc_gates : null
    }
  })
