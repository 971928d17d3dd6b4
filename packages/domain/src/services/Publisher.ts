/**
 * Use case: publishing an entity's latest draft scorecard (spec part 1 rule 4:
 * a re-rating is always this explicit, human act, never automatic). The scoring
 * core is the authority: the published figures are computed here from the
 * answers, and a draft that carries figures which disagree is refused. The
 * scorecard, the history entry and the webhook outbox rows are written in one
 * transaction, so alerts go out exactly for what was published.
 *
 * Events name only an entity the public can read once the act is done
 * (`eventsForAct`): publishing a hidden entity's scorecard sends nothing, and
 * `setStatus` (the CLI's `ratings status`, and `ratings publish
 * --publish-entity` with a publication in the same transaction) sends one
 * rating.new when an entity's published rating becomes readable.
 *
 * `publish` is the single act of the CLI. `publishMany` replays many acts (an
 * import's publications) with the same semantics, as if `publish` ran for each
 * in order with the clock at the act's instant, all in one transaction: the
 * store is read in bulk per chunk of acts, each act is computed in memory by
 * the same pure step (`preparePublication`), a dependency published by an
 * earlier act counts, and the rows are written set-based.
 */
import { Clock, Context, Effect, Layer, Option, Result, Schema } from "effect"
import type { Delivery } from "../model/Delivery.ts"
import { isPubliclyReadable } from "../access/Projection.ts"
import type { EntityRecord, EntityStatus } from "../model/Entity.ts"
import type { EntityType } from "../model/EntityType.ts"
import { isoTimestamp } from "../model/Primitives.ts"
import type { PublishRequest } from "../model/PublishRequest.ts"
import type { Scorecard } from "../model/Scorecard.ts"
import type { EventDraft } from "../model/WebhookEvent.ts"
import { AlertRuleRepository } from "../ports/AlertRuleRepository.ts"
import { DeliveryOutbox } from "../ports/DeliveryOutbox.ts"
import { EntityRepository } from "../ports/EntityRepository.ts"
import { IdGenerator } from "../ports/IdGenerator.ts"
import { RubricRepository } from "../ports/RubricRepository.ts"
import {
  type HistoryEntryRecord,
  type PublishRecord,
  repeatFreeRuns,
  ScorecardRepository,
  type StoredScorecard
} from "../ports/ScorecardRepository.ts"
import type { StoreError } from "../ports/StoreError.ts"
import { Transaction } from "../ports/Transaction.ts"
import type { Dependency } from "../scoring/DependencyDrag.ts"
import { disagreement, FiguresDisagree } from "../scoring/FiguresDisagree.ts"
import { mvcGates } from "../scoring/MvcGates.ts"
import { Scoring } from "../scoring/Scoring.ts"
import type { ScoreInput, ScoreResult } from "../scoring/ScoreEntity.ts"
import type { ScoringError } from "../scoring/ScoringError.ts"
import { newDelivery } from "../webhooks/DeliveryStateMachine.ts"
import {
  addressEvent,
  eventsForAct,
  type PublishedFigures,
  serializeEvent
} from "../webhooks/EventPayloads.ts"

export { disagreement, FiguresDisagree }
export type { PublishRequest }

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
}

/** An entity that has just become readable, to announce (`Publisher.announce`). */
export interface ShownEntity {
  readonly entity_type: EntityType
  readonly id: string
  readonly slug: string
}

/** The key of an entity in `PublishManyOptions.unseen`: its type and its id, lowercased. */
export const entityKey = (type: EntityType, id: string) => `${type}:${id.toLowerCase()}`

const figuresOf = (s: Scorecard): PublishedFigures | undefined =>
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
 * One publish act, computed: the scoring core's figures from the draft's
 * answers, refused when the draft claims figures it does not reproduce; the
 * published scorecard, its history entry and the events for alert rules.
 * Pure, so that `publish` and `publishMany` produce the very same rows.
 */
export const preparePublication = (
  input: PublishInput,
  score: (input: ScoreInput) => Result.Result<ScoreResult, ScoringError>
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
    answers: draft.answers,
    domain_weights: draft.domain_weights,
    dependencies: input.dependencies
  })
  if (Result.isFailure(scored)) return Result.fail(scored.failure)
  const computed = scored.success
  const refused = disagreement(draft, computed)
  if (refused !== undefined) return Result.fail(refused)

  const iso = isoTimestamp(at)
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
    mvc_gates: type === "chain" && input.gateOf !== undefined ? mvcGates(draft.answers, input.gateOf) : null,
    last_rated_at: iso,
    scorecard_published_at: iso
  }
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

/** Acts per chunk of `publishMany`: one bulk read of drafts (with their answers) and one bulk write each. */
const PublishChunk = 2000
/** Per type, above this many slugs to resolve, one read of the type's entities beats one lookup each. */
const SlugLookups = 50

const slugKey = (type: EntityType, slug: string) => `${type}:${slug}`
const idKey = entityKey

const chunksOf = <A>(xs: ReadonlyArray<A>, size: number): Array<ReadonlyArray<A>> => {
  const out: Array<ReadonlyArray<A>> = []
  for (let i = 0; i < xs.length; i += size) out.push(xs.slice(i, i + size))
  return out
}

export class Publisher extends Context.Service<
  Publisher,
  {
    readonly publish: (request: PublishRequest) => Effect.Effect<PublishResult, PublishError>
    /**
     * `publish` of each act in order with the clock at `act.at`, in one
     * transaction: the first act that would fail fails the whole, and nothing
     * is written.
     */
    readonly publishMany: (
      acts: ReadonlyArray<PublishAct>,
      options?: PublishManyOptions
    ) => Effect.Effect<PublishManyResult, PublishError>
    /**
     * Moves an entity to a status and, with `publish`, publishes its latest
     * draft scorecard too, all in one transaction. The events are those of
     * `eventsForAct`: sent only when the entity is readable once the act is
     * done; a rating.new when its published rating becomes readable. Moving an
     * entity to the status it has changes nothing and sends nothing.
     */
    readonly setStatus: (request: StatusRequest) => Effect.Effect<StatusResult, PublishError>
    /**
     * Announces entities that a change of their records (an import's status
     * or flags) has just made readable: one rating.new each with its latest
     * published figures, nothing for one without a published rating, as
     * `setStatus` does. Run in the transaction that changed them; returns the
     * deliveries queued.
     */
    readonly announce: (shown: ReadonlyArray<ShownEntity>) => Effect.Effect<number, StoreError>
  }
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

      const chainGates = Effect.map(rubric.questions("chain"), (questions) => {
        const gateOf = new Map(questions.map((q) => [q.id, q.gate ?? null]))
        return (id: string) => gateOf.get(id)
      })

      /** One delivery per rule matching each event, in event then rule order. */
      const deliveriesFor = Effect.fnUntraced(function* (events: ReadonlyArray<EventDraft>, at: number) {
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
                at
              })
            )
          }
        }
        return deliveries
      })

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

      /** Reads what one act needs of the store and prepares it; `entityAfter` is the record once the act is done. */
      const prepareAct = Effect.fnUntraced(function* (
        request: PublishRequest,
        entity: EntityRecord | undefined,
        entityAfter: EntityRecord | undefined,
        now: number
      ) {
        const type = request.entity_type
        const draft =
          entity === undefined
            ? undefined
            : Option.getOrUndefined(yield* scorecards.latest(type, entity.id, "draft"))
        const previous =
          draft === undefined || entity === undefined
            ? undefined
            : Option.getOrUndefined(yield* scorecards.latest(type, entity.id, "published"))
        const dependencies =
          draft === undefined ? [] : yield* Effect.forEach(draft.dependencies, resolveDependency)
        const gateOf = type === "chain" && draft !== undefined ? yield* chainGates : undefined
        const prepared = preparePublication(
          { request, entity, entityAfter, draft, previous, dependencies, gateOf, at: now },
          scoring.scoreSync
        )
        if (Result.isFailure(prepared)) return yield* prepared.failure
        return { ...prepared.success, previous }
      })

      const publish = Effect.fn("Publisher.publish")(function* (request: PublishRequest) {
        const entity = Option.getOrUndefined(yield* entities.findBySlug(request.entity_type, request.slug))
        const now = yield* Clock.currentTimeMillis
        const { record, events, previous } = yield* prepareAct(request, entity, undefined, now)
        const deliveries = yield* deliveriesFor(events, now)
        yield* tx.run(
          Effect.gen(function* () {
            yield* scorecards.publish(record)
            if (deliveries.length > 0) yield* outbox.enqueue(deliveries)
          })
        )
        return {
          scorecard: record.scorecard,
          previous,
          deliveries: deliveries.length,
          readable: entity !== undefined && isPubliclyReadable(entity)
        }
      })

      const setStatus = Effect.fn("Publisher.setStatus")(function* (request: StatusRequest) {
        const { entity_type: type, slug, status } = request
        const found = yield* entities.findBySlug(type, slug)
        if (Option.isNone(found))
          return yield* new EntityNotFound({
            entity_type: type,
            slug,
            message: `no ${type} with slug ${slug}`
          })
        const entity = found.value
        const now = yield* Clock.currentTimeMillis
        const changed = entity.status !== status
        const after: EntityRecord = changed ? { ...entity, status, updated_at: isoTimestamp(now) } : entity
        const act =
          request.publish === undefined
            ? undefined
            : yield* prepareAct({ entity_type: type, slug, ...request.publish }, entity, after, now)
        let events = act?.events
        if (events === undefined) {
          const card = Option.getOrUndefined(yield* scorecards.latest(type, entity.id, "published"))
          const figures = card === undefined ? undefined : figuresOf(card)
          events = eventsForAct(
            { readable: isPubliclyReadable(entity), figures },
            { readable: isPubliclyReadable(after), figures },
            { entity_type: type, slug: entity.slug, id: entity.id },
            now
          )
        }
        const deliveries = yield* deliveriesFor(events, now)
        yield* tx.run(
          Effect.gen(function* () {
            if (changed) yield* entities.setStatus(type, entity.id, status, after.updated_at)
            if (act !== undefined) yield* scorecards.publish(act.record)
            if (deliveries.length > 0) yield* outbox.enqueue(deliveries)
          })
        )
        return {
          previous_status: entity.status,
          status,
          readable: isPubliclyReadable(after),
          publication:
            act === undefined
              ? undefined
              : { scorecard: act.record.scorecard, previous: act.previous, deliveries: deliveries.length },
          deliveries: deliveries.length
        } satisfies StatusResult
      })

      const publishMany = Effect.fn("Publisher.publishMany")(function* (
        acts: ReadonlyArray<PublishAct>,
        options?: PublishManyOptions
      ) {
        // Entities do not change while publishing: each (type, slug) is resolved once.
        const bySlug = new Map<string, EntityRecord | undefined>()
        const wholeTypes = new Set<EntityType>()
        const entityOf = (type: EntityType, slug: string) => bySlug.get(slugKey(type, slug))
        const resolve = Effect.fnUntraced(function* (wanted: ReadonlyArray<readonly [EntityType, string]>) {
          const missing = new Map<EntityType, Set<string>>()
          for (const [type, slug] of wanted) {
            if (wholeTypes.has(type) || bySlug.has(slugKey(type, slug))) continue
            const slugs = missing.get(type)
            if (slugs === undefined) missing.set(type, new Set([slug]))
            else slugs.add(slug)
          }
          for (const [type, slugs] of missing) {
            if (slugs.size > SlugLookups) {
              for (const record of yield* entities.all(type)) {
                const key = slugKey(type, record.slug)
                if (bySlug.get(key) === undefined) bySlug.set(key, record)
              }
              wholeTypes.add(type)
            } else {
              for (const slug of slugs)
                bySlug.set(slugKey(type, slug), Option.getOrUndefined(yield* entities.findBySlug(type, slug)))
            }
          }
        })
        // Headline composite of each entity by `type:id`: as stored, then as this call publishes them.
        const composites = new Map<string, number | null>()
        let gateOf: ((id: string) => string | null | undefined) | undefined
        let done = 0
        let deliveryCount = 0
        // The `unseen` entities whose first act this call has prepared.
        const sighted = new Set<string>()

        const runChunk = Effect.fnUntraced(function* (chunk: ReadonlyArray<PublishAct>) {
          const found = chunk.map((a) => entityOf(a.request.entity_type, a.request.slug))
          const present = new Map<EntityType, Array<string>>()
          chunk.forEach((a, i) => {
            const id = found[i]?.id
            if (id === undefined) return
            const list = present.get(a.request.entity_type)
            if (list === undefined) present.set(a.request.entity_type, [id])
            else list.push(id)
          })
          const drafts = new Map<string, StoredScorecard>()
          const previous = new Map<string, Scorecard>()
          for (const [type, entityIds] of present) {
            for (const s of yield* scorecards.latestOf(type, entityIds, "draft"))
              drafts.set(idKey(type, s.entity_id), s)
            for (const s of (yield* scorecards.latestPublishedOf(type, entityIds)).values())
              previous.set(idKey(type, s.entity_id), s)
          }
          const deps = [...drafts.values()].flatMap((d) => d.dependencies)
          yield* resolve(deps.map((d) => [d.entity_type, d.slug] as const))
          const unknown = new Map<EntityType, Array<string>>()
          for (const d of deps) {
            const e = entityOf(d.entity_type, d.slug)
            if (e === undefined || composites.has(idKey(d.entity_type, e.id))) continue
            composites.set(idKey(d.entity_type, e.id), null)
            const list = unknown.get(d.entity_type)
            if (list === undefined) unknown.set(d.entity_type, [e.id])
            else list.push(e.id)
          }
          for (const [type, entityIds] of unknown)
            for (const s of (yield* scorecards.latestPublishedOf(type, entityIds)).values())
              composites.set(idKey(type, s.entity_id), s.composite_score)
          if (gateOf === undefined && chunk.some((a) => a.request.entity_type === "chain"))
            gateOf = yield* chainGates

          const prepared: Array<Prepared & { readonly at: number }> = []
          for (const [i, act] of chunk.entries()) {
            const type = act.request.entity_type
            const entity = found[i]
            const draft = entity === undefined ? undefined : drafts.get(idKey(type, entity.id))
            const key = entity === undefined ? undefined : idKey(type, entity.id)
            const firstSight = key !== undefined && options?.unseen?.has(key) === true && !sighted.has(key)
            if (firstSight) sighted.add(key)
            const result = preparePublication(
              {
                request: act.request,
                entity,
                readableBefore: firstSight ? false : undefined,
                draft,
                previous: entity === undefined ? undefined : previous.get(idKey(type, entity.id)),
                dependencies: (draft?.dependencies ?? []).map((d) => {
                  const e = entityOf(d.entity_type, d.slug)
                  return {
                    ...d,
                    composite_score:
                      e === undefined ? null : (composites.get(idKey(d.entity_type, e.id)) ?? null)
                  }
                }),
                gateOf: type === "chain" ? gateOf : undefined,
                at: act.at
              },
              scoring.scoreSync
            )
            if (Result.isFailure(result)) return yield* result.failure
            const { record } = result.success
            composites.set(idKey(type, record.entity_id), record.scorecard.composite_score)
            prepared.push({ ...result.success, at: act.at })
          }
          const deliveries: Array<Delivery> = []
          for (const p of prepared) deliveries.push(...(yield* deliveriesFor(p.events, p.at)))
          yield* scorecards.publishMany(prepared.map((p) => p.record))
          if (deliveries.length > 0) yield* outbox.enqueue(deliveries)
          done += chunk.length
          deliveryCount += deliveries.length
          options?.onProgress?.(done)
        })

        yield* tx.run(
          Effect.gen(function* () {
            yield* resolve(acts.map((a) => [a.request.entity_type, a.request.slug] as const))
            // An act whose entity is unknown keys by its slug: it fails when its turn comes.
            const keyOf = (a: PublishAct) => {
              const e = entityOf(a.request.entity_type, a.request.slug)
              return e === undefined
                ? slugKey(a.request.entity_type, a.request.slug)
                : idKey(a.request.entity_type, e.id)
            }
            for (const run of repeatFreeRuns(acts, keyOf))
              for (const chunk of chunksOf(run, PublishChunk)) yield* runChunk(chunk)
          })
        )
        return { published: done, deliveries: deliveryCount }
      })

      const announce = Effect.fn("Publisher.announce")(function* (shown: ReadonlyArray<ShownEntity>) {
        if (shown.length === 0) return 0
        const now = yield* Clock.currentTimeMillis
        const cards = new Map<string, Scorecard>()
        for (const type of new Set(shown.map((e) => e.entity_type))) {
          const ids = shown.filter((e) => e.entity_type === type).map((e) => e.id)
          for (const [id, card] of yield* scorecards.latestPublishedOf(type, ids))
            cards.set(idKey(type, id), card)
        }
        const events = shown.flatMap((e) => {
          const card = cards.get(idKey(e.entity_type, e.id))
          const figures = card === undefined ? undefined : figuresOf(card)
          return eventsForAct(
            { readable: false, figures },
            { readable: true, figures },
            { entity_type: e.entity_type, slug: e.slug, id: e.id },
            now
          )
        })
        const deliveries = yield* deliveriesFor(events, now)
        if (deliveries.length > 0) yield* tx.run(outbox.enqueue(deliveries))
        return deliveries.length
      })

      return Publisher.of({ publish, publishMany, setStatus, announce })
    })
  )
}
