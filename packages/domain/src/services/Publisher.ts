/**
 * Use case: publishing an entity's latest draft scorecard (spec part 1 rule 4:
 * a re-rating is always this explicit, human act, never automatic). The scoring
 * core is the authority: the published figures are computed here from the
 * answers, and a draft that carries figures which disagree is refused. The
 * scorecard, the history entry and the webhook outbox rows are written in one
 * transaction, so alerts go out exactly for what was published.
 */
import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import type { Delivery } from "../model/Delivery.ts"
import type { EntityType } from "../model/EntityType.ts"
import type { Dependency } from "../scoring/DependencyDrag.ts"
import { mvcGates } from "../scoring/MvcGates.ts"
import { Scoring } from "../scoring/Scoring.ts"
import type { ScoreResult } from "../scoring/ScoreEntity.ts"
import type { ScoringError } from "../scoring/ScoringError.ts"
import { newDelivery } from "../webhooks/DeliveryStateMachine.ts"
import {
  addressEvent,
  eventsForPublish,
  type PublishedFigures,
  serializeEvent
} from "../webhooks/EventPayloads.ts"
import { AlertRuleRepository } from "../ports/AlertRuleRepository.ts"
import { DeliveryOutbox } from "../ports/DeliveryOutbox.ts"
import { EntityRepository } from "../ports/EntityRepository.ts"
import { IdGenerator } from "../ports/IdGenerator.ts"
import { RubricRepository } from "../ports/RubricRepository.ts"
import { ScorecardRepository, type StoredScorecard } from "../ports/ScorecardRepository.ts"
import type { StoreError } from "../ports/StoreError.ts"
import { Transaction } from "../ports/Transaction.ts"

export class EntityNotFound extends Schema.TaggedError<EntityNotFound>()("EntityNotFound", {
  entity_type: Schema.String,
  slug: Schema.String,
  message: Schema.String
}) {}

export class NoDraftScorecard extends Schema.TaggedError<NoDraftScorecard>()("NoDraftScorecard", {
  entity_type: Schema.String,
  slug: Schema.String,
  message: Schema.String
}) {}

/** A draft carried a figure the core does not reproduce from its answers. */
export class FiguresDisagree extends Schema.TaggedError<FiguresDisagree>()("FiguresDisagree", {
  field: Schema.String,
  stored: Schema.Unknown,
  computed: Schema.Unknown,
  message: Schema.String
}) {}

export type PublishError = EntityNotFound | NoDraftScorecard | FiguresDisagree | ScoringError | StoreError

export interface PublishRequest {
  readonly entity_type: EntityType
  readonly slug: string
  readonly reasoning: string
  readonly actor: string
}

export interface PublishResult {
  readonly scorecard: StoredScorecard
  readonly previous: StoredScorecard | undefined
  readonly deliveries: number
}

const checkedFields = [
  "composite_score",
  "grade",
  "letter_grade",
  "intrinsic_composite_score",
  "intrinsic_letter_grade"
] as const

/** The first stored figure that disagrees with the computed one (null stored figures are not claims). */
export const disagreement = (draft: StoredScorecard, computed: ScoreResult): FiguresDisagree | undefined => {
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

const figuresOf = (s: StoredScorecard): PublishedFigures | undefined =>
  s.composite_score === null || s.letter_grade === null
    ? undefined
    : {
        composite_score: s.composite_score,
        letter_grade: s.letter_grade,
        domain_scores: s.domain_scores ?? {}
      }

export class Publisher extends Context.Service<
  Publisher,
  { readonly publish: (request: PublishRequest) => Effect.Effect<PublishResult, PublishError> }
>()("@ratings/domain/services/Publisher") {
  static readonly layer = Layer.effect(
    Publisher,
    Effect.gen(function* () {
      const entities = yield* EntityRepository
      const scorecards = yield* ScorecardRepository
      const rubric = yield* RubricRepository
      const rules = yield* AlertRuleRepository
      const outbox = yield* DeliveryOutbox
      const ids = yield* IdGenerator
      const tx = yield* Transaction
      const scoring = yield* Scoring

      /** A dependency's current headline: its latest published composite, or null when unrated. */
      const resolveDependency = (dep: StoredScorecard["dependencies"][number]) =>
        Effect.gen(function* () {
          const found = yield* entities.findBySlug(dep.entity_type, dep.slug)
          if (Option.isNone(found)) return { ...dep, composite_score: null } satisfies Dependency
          const card = yield* scorecards.latest(dep.entity_type, found.value.id, "published")
          return {
            ...dep,
            composite_score: Option.isSome(card) ? card.value.composite_score : null
          } satisfies Dependency
        })

      return Publisher.of({
        publish: Effect.fn("Publisher.publish")(function* (request) {
          const { entity_type: type, slug } = request
          const found = yield* entities.findBySlug(type, slug)
          if (Option.isNone(found)) {
            return yield* new EntityNotFound({
              entity_type: type,
              slug,
              message: `no ${type} with slug ${slug}`
            })
          }
          const entity = found.value
          const draftOpt = yield* scorecards.latest(type, entity.id, "draft")
          if (Option.isNone(draftOpt)) {
            return yield* new NoDraftScorecard({
              entity_type: type,
              slug,
              message: `${type} ${slug} has no draft scorecard to publish`
            })
          }
          const draft = draftOpt.value
          const previous = Option.getOrUndefined(yield* scorecards.latest(type, entity.id, "published"))
          const dependencies = yield* Effect.forEach(draft.dependencies, resolveDependency)
          const computed = yield* scoring.score({
            entity_type: type,
            categories: entity.categories ?? [],
            answers: draft.answers,
            domain_weights: draft.domain_weights,
            dependencies
          })
          const refused = disagreement(draft, computed)
          if (refused !== undefined) return yield* refused

          let gates: Record<string, boolean> | null = null
          if (type === "chain") {
            const questions = yield* rubric.questions("chain")
            const gateOf = new Map(questions.map((q) => [q.id, q.gate ?? null]))
            gates = mvcGates(draft.answers, (id) => gateOf.get(id))
          }

          const now = yield* Clock.currentTimeMillis
          const at = new Date(now).toISOString()
          const published: StoredScorecard = {
            ...draft,
            status: "published",
            grade: computed.grade,
            letter_grade: computed.letter_grade,
            composite_score: computed.composite_score,
            intrinsic_composite_score: computed.intrinsic_composite_score,
            intrinsic_letter_grade: computed.intrinsic_letter_grade,
            largest_drag_hint: computed.largest_drag_hint,
            has_unrated_dependencies: computed.has_unrated_dependencies,
            domain_scores: computed.domain_scores,
            domain_weights: computed.domain_weights,
            mvc_gates: gates,
            last_rated_at: at,
            scorecard_published_at: at
          }

          const events = eventsForPublish(
            previous === undefined ? undefined : figuresOf(previous),
            figuresOf(published)!,
            { entity_type: type, slug: entity.slug, id: entity.id },
            now
          )
          const deliveries: Array<Delivery> = []
          for (const event of events) {
            for (const rule of yield* rules.matching(event)) {
              const delivery_id = yield* ids.uuid
              deliveries.push(
                newDelivery({
                  delivery_id,
                  rule_id: rule.id,
                  event: event.event,
                  body: serializeEvent(addressEvent(event, { delivery_id, watchlist_id: rule.id })),
                  at: now
                })
              )
            }
          }

          yield* tx.run(
            Effect.gen(function* () {
              yield* scorecards.publish({
                entity_type: type,
                entity_id: entity.id,
                scorecard: published,
                history: {
                  scorecard_id: published.id,
                  scorecard_version: published.scorecard_version,
                  grade: published.grade,
                  letter_grade: published.letter_grade,
                  composite_score: published.composite_score,
                  intrinsic_composite_score: published.intrinsic_composite_score,
                  intrinsic_letter_grade: published.intrinsic_letter_grade,
                  published_at: at,
                  reasoning: request.reasoning,
                  changed_by: request.actor
                }
              })
              if (deliveries.length > 0) yield* outbox.enqueue(deliveries)
            })
          )
          return { scorecard: published, previous, deliveries: deliveries.length }
        })
      })
    })
  )
}
