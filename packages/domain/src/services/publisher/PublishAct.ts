/**
 * One publish act, as data and as a pure step: the requests and results of
 * the Publisher, its errors, and `preparePublication`, which computes what one
 * act writes and announces, so that `publish` and `publishMany` produce the
 * very same rows.
 */
import { Result, Schema } from "effect"
import type { TierProjection } from "../../access/Projection.ts"
import type { EntityRecord, EntityStatus } from "../../model/Entity.ts"
import type { EntityType } from "../../model/EntityType.ts"
import { isoTimestamp } from "../../model/Primitives.ts"
import type { PublishRequest } from "../../model/PublishRequest.ts"
import type { Scorecard } from "../../model/Scorecard.ts"
import type { EventDraft } from "../../model/WebhookEvent.ts"
import { answerFieldsOf, answerSliceOf, withLazyAnswers } from "../../import/ImportAnswerTable.ts"
import type {
  HistoryEntryRecord,
  PublishRecord,
  SavedAnswers,
  StoredScorecard
} from "../../ports/ScorecardRepository.ts"
import type { StoreError } from "../../ports/StoreError.ts"
import type { Dependency } from "../../scoring/DependencyDrag.ts"
import { disagreement, type FiguresDisagree } from "../../scoring/FiguresDisagree.ts"
import { mvcGates } from "../../scoring/MvcGates.ts"
import type { ScoreInput, ScoreResult } from "../../scoring/ScoreEntity.ts"
import type { ScoringError } from "../../scoring/ScoringError.ts"
import { eventsForAct, type PublishedFigures } from "../../webhooks/EventPayloads.ts"

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

export type PublishError = EntityNotFound | NoDraftScorecard | FiguresDisagree | ScoringError | StoreError

export interface PublishResult {
  readonly scorecard: StoredScorecard
  readonly previous: StoredScorecard | undefined
  readonly deliveries: number
  /**
   * Whether the entity is readable without the admin bypass (published, active,
   * not private). When it is not, the scorecard is published but nobody sees it
   * and no event is sent until the entity becomes readable (`setStatus`).
   */
  readonly readable: boolean
}

/** `setStatus`: move an entity to a status, and optionally publish its latest draft in the same step. */
export interface StatusRequest {
  readonly entity_type: EntityType
  readonly slug: string
  readonly status: EntityStatus
  /** Also publish the entity's latest draft scorecard, with this reasoning and actor. */
  readonly publish?: { readonly reasoning: string; readonly actor: string } | undefined
}

export interface StatusResult {
  readonly previous_status: EntityStatus
  readonly status: EntityStatus
  /** Whether the entity is readable without the admin bypass once the act is done. */
  readonly readable: boolean
  /** The publication, when `publish` was asked. */
  readonly publication: Omit<PublishResult, "readable"> | undefined
  /** Webhook deliveries queued by the whole act. */
  readonly deliveries: number
}

/** One act of `publishMany`: the request, and the instant (epoch milliseconds) the clock reads for it. */
export interface PublishAct {
  readonly request: PublishRequest
  readonly at: number
}

export interface PublishManyResult {
  readonly published: number
  readonly deliveries: number
}

export interface PublishManyOptions {
  /** Called after each chunk of acts is written, with the number of acts done so far. */
  readonly onProgress?: ((done: number) => void) | undefined
  /**
   * Entities, by `entityKey`, that subscribers could not read before this call
   * although they can now (an import has just shown them): the first act on
   * each is seen from hidden, so its rating is announced as a rating.new,
   * never a rating.changed for figures nobody saw. Later acts follow it as usual.
   */
  readonly unseen?: ReadonlySet<string> | undefined
  /**
   * The answers of drafts the caller has saved in this transaction, by
   * lower-cased scorecard id: the store need not read them back
   * (`ScorecardRepository.latestOf`). The drafts are scored all the same.
   */
  readonly savedAnswers?: ReadonlyMap<string, SavedAnswers> | undefined
  /**
   * Entities the caller has written (or read) in this transaction, by type and
   * slug, as the store holds them now: the store need not read them back. A
   * slug this does not know is looked up in the store as usual.
   */
  readonly entities?: ((type: EntityType, slug: string) => EntityRecord | undefined) | undefined
}

/** An entity that has just become readable, to announce (`Publisher.announce`). */
export interface ShownEntity {
  readonly entity_type: EntityType
  readonly id: string
  readonly slug: string
}

/** The key of an entity in `PublishManyOptions.unseen`: its type and its id, lowercased. */
export const entityKey = (type: EntityType, id: string) => `${type}:${id.toLowerCase()}`

/** The figures an event carries of a scorecard; none while it has no grade. */
export const figuresOf = (s: Scorecard): PublishedFigures | undefined =>
  s.composite_score === null || s.letter_grade === null
    ? undefined
    : {
        composite_score: s.composite_score,
        letter_grade: s.letter_grade,
        domain_scores: s.domain_scores ?? {}
      }

/** What one act writes and announces; the events still need their matching rules. */
export interface Prepared {
  readonly record: PublishRecord
  readonly events: ReadonlyArray<EventDraft>
}

/** Everything one act reads of the store, as it is at that act. */
export interface PublishInput {
  readonly request: PublishRequest
  readonly entity: EntityRecord | undefined
  /** The entity's record once the act is done, when the act also changes it (its status); else `entity`. */
  readonly entityAfter?: EntityRecord | undefined
  /** Whether a subscriber could read the entity before the act, when not as `entity` says (`PublishManyOptions.unseen`). */
  readonly readableBefore?: boolean | undefined
  readonly draft: StoredScorecard | undefined
  readonly previous: Scorecard | undefined
  /** The draft's dependencies with their current headline composite (null when unrated or unknown). */
  readonly dependencies: ReadonlyArray<Dependency>
  /** The gate of each chain question; read only for chains. */
  readonly gateOf: ((questionId: string) => string | null | undefined) | undefined
  readonly at: number
}

/**
 * `draft` with `changes`: its answers kept as they are held, so that a draft
 * whose answers are in an import's answer table does not make them all.
 */
const keepingAnswers = (draft: StoredScorecard, changes: Partial<StoredScorecard>): StoredScorecard => {
  const slice = answerSliceOf(draft)
  if (slice === undefined) return { ...draft, ...changes }
  // Each field but the answers, which are not read.
  const fields: Record<string, unknown> = {}
  for (const key of Object.keys(draft))
    if (key !== "answers") fields[key] = (draft as unknown as Record<string, unknown>)[key]
  return withLazyAnswers({ ...(fields as Omit<StoredScorecard, "answers">), ...changes }, slice)
}

/**
 * One publish act, computed: the scoring core's figures from the draft's
 * answers, refused when the draft claims figures it does not reproduce; the
 * published scorecard, its history entry and the events for alert rules.
 * Pure, so that `publish` and `publishMany` produce the very same rows; the
 * scoring core and who can read the entity (the tier projection) are given.
 */
export const preparePublication = (
  input: PublishInput,
  score: (input: ScoreInput) => Result.Result<ScoreResult, ScoringError>,
  isPubliclyReadable: TierProjection["isPubliclyReadable"]
): Result.Result<Prepared, PublishError> => {
  const { request, entity, draft, previous, at } = input
  const { entity_type: type, slug } = request
  if (entity === undefined)
    return Result.fail(
      new EntityNotFound({ entity_type: type, slug, message: `no ${type} with slug ${slug}` })
    )
  if (draft === undefined)
    return Result.fail(
      new NoDraftScorecard({
        entity_type: type,
        slug,
        message: `${type} ${slug} has no draft scorecard to publish`
      })
    )
  const scored = score({
    entity_type: type,
    categories: entity.categories ?? [],
    answers: answerFieldsOf(draft),
    domain_weights: draft.domain_weights,
    dependencies: input.dependencies
  })
  if (Result.isFailure(scored)) return Result.fail(scored.failure)
  const computed = scored.success
  const refused = disagreement(draft, computed)
  if (refused !== undefined) return Result.fail(refused)

  const iso = isoTimestamp(at)
  const published = keepingAnswers(draft, {
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
    mvc_gates:
      type === "chain" && input.gateOf !== undefined ? mvcGates(answerFieldsOf(draft), input.gateOf) : null,
    last_rated_at: iso,
    scorecard_published_at: iso
  })
  const history: HistoryEntryRecord = {
    scorecard_id: published.id,
    scorecard_version: published.scorecard_version,
    grade: published.grade,
    letter_grade: published.letter_grade,
    composite_score: published.composite_score,
    intrinsic_composite_score: published.intrinsic_composite_score,
    intrinsic_letter_grade: published.intrinsic_letter_grade,
    published_at: iso,
    reasoning: request.reasoning,
    changed_by: request.actor
  }
  const previousFigures = previous === undefined ? undefined : figuresOf(previous)
  const events = eventsForAct(
    { readable: input.readableBefore ?? isPubliclyReadable(entity), figures: previousFigures },
    { readable: isPubliclyReadable(input.entityAfter ?? entity), figures: figuresOf(published) },
    { entity_type: type, slug: entity.slug, id: entity.id },
    at
  )
  return Result.succeed({
    record: { entity_type: type, entity_id: entity.id, scorecard: published, history },
    events
  })
}
