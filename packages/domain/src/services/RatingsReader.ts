/**
 * Use case: reading ratings (spec parts 2, 4 and 5). Every read route of the
 * seven entity types goes through here, so tier gating, visibility and the
 * "not found, exactly like an unknown slug" rule are applied in one place.
 */
import { Context, Effect, Layer, Option, Result, Schema } from "effect"
import { type AccessDenied, authorize, type Capability } from "../access/Capabilities.ts"
import { type EntityListQuery, ListParameters } from "../access/ListFilter.ts"
import {
  areScorecardsVisible,
  effectiveListFlags,
  isAdmin,
  isDetailVisible,
  isPubliclyReadable,
  projectScorecardList
} from "../access/Projection.ts"
import type { Caller } from "../model/Caller.ts"
import type { EntityRecord } from "../model/Entity.ts"
import { type EntityType, EntityTypes } from "../model/EntityType.ts"
import { canonicalTimestamp } from "../model/Primitives.ts"
import type { Question } from "../model/Question.ts"
import type {
  DomainsBody,
  EvidenceBody,
  HistoryBody,
  MethodologyBody,
  QuestionsBody,
  RubricBody
} from "../model/Responses.ts"
import type { Scorecard, ScorecardDetail } from "../model/Scorecard.ts"
import { Attribution, MethodologyUrl } from "../model/ServiceInfo.ts"
import { BridgeCategoryDomains, BridgeQuestionCatalogue } from "../scoring/BridgeRubric.ts"
import { dragHintTarget, typeOnlyDragHint } from "../scoring/DependencyDrag.ts"
import { GradeLadder, GradeRounding } from "../scoring/GradeLadder.ts"
import { domainsOfType, MethodologyName, MethodologyVersion } from "../scoring/Methodology.ts"
import { defaultDomainWeights } from "../scoring/ScoreEntity.ts"
import { EntityRepository, type UnreadableRef } from "../ports/EntityRepository.ts"
import { RubricRepository } from "../ports/RubricRepository.ts"
import { ScorecardRepository, type StoredScorecard } from "../ports/ScorecardRepository.ts"
import type { Page, StoreError } from "../ports/StoreError.ts"

/** Unknown, hidden, or (for non-admins) not published: all answer the same 404. */
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", {}) {}

export interface ListRequest extends Omit<EntityListQuery, "flags"> {
  readonly include_inactive?: boolean | undefined
  readonly include_frameworks?: boolean | undefined
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Spec part 2 Identifiers rule 1: a UUID parse is tried first; if it fails, the value is a slug. */
export const isUuid = (identifier: string): boolean => UUID.test(identifier)

type ReadError = NotFound | AccessDenied | StoreError

/** What a public record may not name (docs/adr/0003-access-and-lists.md), ids lowercased. */
export interface HiddenNames {
  /** Chains the public cannot read: not published, private or inactive. */
  readonly chainIds: ReadonlySet<string>
  readonly chainSlugs: ReadonlySet<string>
  /** Organisations a bridge may not name as validator_set_owner: private or inactive ones. */
  readonly ownerIds: ReadonlySet<string>
  /** Organisations a vault may not name as curator: those the public cannot read (not published, private or inactive). */
  readonly curatorIds: ReadonlySet<string>
}

export const hiddenNames = (
  chains: ReadonlyArray<UnreadableRef>,
  organisations: ReadonlyArray<UnreadableRef>
): HiddenNames => ({
  chainIds: new Set(chains.map((c) => c.id.toLowerCase())),
  chainSlugs: new Set(chains.map((c) => c.slug)),
  ownerIds: new Set(organisations.filter((o) => o.is_private || !o.is_active).map((o) => o.id.toLowerCase())),
  curatorIds: new Set(organisations.map((o) => o.id.toLowerCase()))
})

/**
 * A record as the public may see it: without the briefs of chains the public
 * cannot read (a brief is hidden when its id or its slug names such a chain),
 * a bridge's validator_set_owner null when that organisation is private or
 * inactive (an unpublished one stays: spec part 2), and a vault's curator and
 * curator_id null when the public cannot read that organisation (the spec
 * allows no unpublished curator). A token's own `chain` is
 * required by the spec's token table and stays. Unchanged records are returned as they are.
 */
export const projectRecord = (record: EntityRecord, hidden: HiddenNames): EntityRecord => {
  const isHidden = (b: { readonly slug: string; readonly id?: string | undefined }) =>
    hidden.chainSlugs.has(b.slug) || (b.id !== undefined && hidden.chainIds.has(b.id.toLowerCase()))
  let out = record
  if (record.chains?.some(isHidden) === true)
    out = { ...out, chains: record.chains.filter((b) => !isHidden(b)) } as EntityRecord
  const owner = "validator_set_owner" in record ? record.validator_set_owner : null
  if (owner !== null && hidden.ownerIds.has(owner.id.toLowerCase()))
    out = { ...out, validator_set_owner: null } as EntityRecord
  const curatorId = "curator_id" in record ? (record.curator_id ?? record.curator?.id ?? null) : null
  if (curatorId !== null && hidden.curatorIds.has(curatorId.toLowerCase()))
    out = { ...out, curator_id: null, curator: null } as EntityRecord
  return out
}

export class RatingsReader extends Context.Service<
  RatingsReader,
  {
    readonly list: (caller: Caller, request: ListRequest) => Effect.Effect<Page<EntityRecord>, StoreError>
    readonly detail: (
      caller: Caller,
      type: EntityType,
      identifier: string,
      includeInactive: boolean
    ) => Effect.Effect<EntityRecord, NotFound | StoreError>
    readonly scorecards: (
      caller: Caller,
      type: EntityType,
      idOrSlug: string
    ) => Effect.Effect<Page<Scorecard>, NotFound | StoreError>
    readonly domains: (
      caller: Caller,
      type: EntityType,
      slug: string
    ) => Effect.Effect<DomainsBody, ReadError>
    readonly history: (
      caller: Caller,
      type: EntityType,
      slug: string
    ) => Effect.Effect<HistoryBody, ReadError>
    readonly questions: (
      caller: Caller,
      type: EntityType,
      slug: string
    ) => Effect.Effect<QuestionsBody, ReadError>
    readonly rubric: (caller: Caller, type: EntityType, slug: string) => Effect.Effect<RubricBody, ReadError>
    readonly evidence: (
      caller: Caller,
      type: EntityType,
      slug: string
    ) => Effect.Effect<EvidenceBody, ReadError>
    readonly scorecardById: (
      caller: Caller,
      type: EntityType,
      scorecardId: string
    ) => Effect.Effect<ScorecardDetail, ReadError>
    readonly methodology: () => Effect.Effect<MethodologyBody, StoreError>
  }
>()("@ratings/domain/services/RatingsReader") {
  static readonly layer = Layer.effect(
    RatingsReader,
    Effect.gen(function* () {
      const entities = yield* EntityRepository
      const scorecards = yield* ScorecardRepository
      const rubric = yield* RubricRepository

      const gate = (caller: Caller, capability: Capability) => {
        const r = authorize(caller, capability)
        return Result.isSuccess(r) ? Effect.void : Effect.fail(r.failure)
      }

      const resolve = (type: EntityType, identifier: string) =>
        isUuid(identifier) ? entities.findById(type, identifier) : entities.findBySlug(type, identifier)

      /** An entity whose scorecards and per-entity data this caller may see, or NotFound. */
      const rated = (caller: Caller, lookup: Effect.Effect<Option.Option<EntityRecord>, StoreError>) =>
        Effect.flatMap(lookup, (found) =>
          Option.isSome(found) && areScorecardsVisible(caller, found.value)
            ? Effect.succeed(found.value)
            : Effect.fail(new NotFound())
        )
      const ratedBySlug = (caller: Caller, type: EntityType, slug: string) =>
        rated(caller, entities.findBySlug(type, slug))

      const latestPublished = (type: EntityType, entityId: string) =>
        Effect.map(scorecards.latest(type, entityId, "published"), Option.getOrUndefined)

      const weightsOf = (type: EntityType, record: EntityRecord, card: StoredScorecard | undefined) =>
        card?.domain_weights ?? defaultDomainWeights(type, record.categories ?? [])

      const questionsOf = (type: EntityType) =>
        Effect.map(
          rubric.questions(type),
          (qs): ReadonlyArray<Question> =>
            qs.length === 0 && type === "bridge"
              ? BridgeQuestionCatalogue.map((q) => ({
                  id: q.id,
                  entity_type: "bridge",
                  domain: q.domain,
                  text: q.text,
                  weight: q.weight,
                  max_score: 4,
                  criteria: [],
                  position: q.position
                }))
              : qs
        )

      const brief = (r: EntityRecord) => ({ slug: r.slug, name: r.name })

      /** What records served to this caller may not name; nothing for an admin, who sees records as stored. */
      const hiddenFor = (caller: Caller, type: EntityType) =>
        isAdmin(caller)
          ? Effect.succeed(undefined)
          : Effect.gen(function* () {
              const chains = yield* entities.unreadable("chain")
              const organisations =
                type === "bridge" || type === "vault" ? yield* entities.unreadable("organisation") : []
              return hiddenNames(chains, organisations)
            })

      /**
       * Drag hints as this caller may read them: a hint names its dependency
       * only when the public can read that entity now (an existing, published,
       * active, non-private entity of that type and slug); otherwise it gives
       * the type alone, "largest drag: <type>" (docs/adr/0003-access-and-lists.md).
       * Admins read hints as stored. Returns the projection of one hint.
       */
      const dragHintsFor = (caller: Caller, hints: ReadonlyArray<string | null>) =>
        Effect.gen(function* () {
          const replaced = new Map<string, string>()
          if (isAdmin(caller)) return (hint: string | null) => hint
          for (const hint of new Set(hints)) {
            const target = hint === null ? undefined : dragHintTarget(hint)
            if (hint === null || target === undefined) continue
            const named = yield* entities.findBySlug(target.entity_type, target.slug)
            if (Option.isNone(named) || !isPubliclyReadable(named.value))
              replaced.set(hint, typeOnlyDragHint(target.entity_type))
          }
          return (hint: string | null) => (hint === null ? null : (replaced.get(hint) ?? hint))
        })

      return RatingsReader.of({
        list: (caller, request) =>
          Effect.gen(function* () {
            const { include_inactive, include_frameworks, ...rest } = request
            const hidden = yield* hiddenFor(caller, request.entity_type)
            // A hidden chain filters like an unknown one: no record names it.
            const chain = ListParameters[request.entity_type].includes("chain") ? request.chain : undefined
            if (hidden !== undefined && chain !== undefined && hidden.chainSlugs.has(chain))
              return { items: [], total: 0 }
            // So does a hidden curator: no record names it either.
            const curator = ListParameters[request.entity_type].includes("curator_id")
              ? request.curator_id
              : undefined
            if (hidden !== undefined && curator !== undefined && hidden.curatorIds.has(curator.toLowerCase()))
              return { items: [], total: 0 }
            const page = yield* entities.list({
              ...rest,
              flags: effectiveListFlags(caller, { include_inactive, include_frameworks })
            })
            return hidden === undefined
              ? page
              : { items: page.items.map((r) => projectRecord(r, hidden)), total: page.total }
          }),

        detail: (caller, type, identifier, includeInactive) =>
          Effect.gen(function* () {
            const found = yield* resolve(type, identifier)
            if (
              Option.isNone(found) ||
              !isDetailVisible(found.value, effectiveListFlags(caller, { include_inactive: includeInactive }))
            )
              return yield* new NotFound()
            const hidden = yield* hiddenFor(caller, type)
            return hidden === undefined ? found.value : projectRecord(found.value, hidden)
          }),

        scorecards: (caller, type, idOrSlug) =>
          Effect.gen(function* () {
            const record = yield* rated(caller, resolve(type, idOrSlug))
            const all = yield* scorecards.listForEntity(type, record.id)
            const projected = projectScorecardList(caller, type, all)
            const hint = yield* dragHintsFor(
              caller,
              projected.map((s) => s.largest_drag_hint)
            )
            const items = projected.map((s) =>
              hint(s.largest_drag_hint) === s.largest_drag_hint
                ? s
                : { ...s, largest_drag_hint: hint(s.largest_drag_hint) }
            )
            return { items, total: items.length }
          }),

        domains: (caller, type, slug) =>
          Effect.gen(function* () {
            yield* gate(caller, "domains")
            const record = yield* ratedBySlug(caller, type, slug)
            const card = yield* latestPublished(type, record.id)
            const hint = yield* dragHintsFor(caller, [card?.largest_drag_hint ?? null])
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
          }),

        history: (caller, type, slug) =>
          Effect.gen(function* () {
            yield* gate(caller, "history")
            const record = yield* ratedBySlug(caller, type, slug)
            const items = yield* scorecards.history(type, record.id)
            return { entity: brief(record), items, total: items.length }
          }),

        questions: (caller, type, slug) =>
          Effect.gen(function* () {
            yield* gate(caller, "questions")
            const record = yield* ratedBySlug(caller, type, slug)
            const card = yield* latestPublished(type, record.id)
            const catalogue = yield* questionsOf(type)
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
          }),

        rubric: (caller, type, slug) =>
          Effect.gen(function* () {
            yield* gate(caller, "rubric")
            const record = yield* ratedBySlug(caller, type, slug)
            const card = yield* latestPublished(type, record.id)
            const catalogue = yield* questionsOf(type)
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
          }),

        evidence: (caller, type, slug) =>
          Effect.gen(function* () {
            yield* gate(caller, "evidence")
            const record = yield* ratedBySlug(caller, type, slug)
            const card = yield* latestPublished(type, record.id)
            const catalogue = yield* questionsOf(type)
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
          }),

        scorecardById: (caller, type, scorecardId) =>
          Effect.gen(function* () {
            yield* gate(caller, "scorecard_by_id")
            const found = yield* scorecards.findById(type, scorecardId)
            if (Option.isNone(found)) return yield* new NotFound()
            const card = found.value
            const owner = yield* entities.findById(type, card.entity_id)
            const visible =
              Option.isSome(owner) &&
              areScorecardsVisible(caller, owner.value) &&
              (caller._tag === "Admin" || card.status !== "draft")
            if (!visible) return yield* new NotFound()
            const { dependencies: _d, evidence: _e, ...detail } = card
            const hint = yield* dragHintsFor(caller, [detail.largest_drag_hint])
            return {
              ...detail,
              largest_drag_hint: hint(detail.largest_drag_hint),
              mvc_gates: type === "chain" ? detail.mvc_gates : null
            }
          }),

        methodology: () =>
          Effect.gen(function* () {
            const entity_types = []
            for (const type of EntityTypes) {
              const qs = yield* questionsOf(type)
              const domains =
                type === "bridge"
                  ? domainsOfType(type, Object.values(BridgeCategoryDomains))
                  : domainsOfType(type)
              entity_types.push({ type, questions: qs.length, domains, domain_count: domains.length })
            }
            return {
              name: MethodologyName,
              version: MethodologyVersion,
              total_questions: entity_types.reduce((n, t) => n + t.questions, 0),
              entity_types,
              grade_scale: GradeLadder.map((b) => ({
                grade: b.grade,
                min_score: b.min_score,
                description: b.description
              })),
              grade_rounding: GradeRounding,
              attribution: Attribution,
              methodology_url: MethodologyUrl
            }
          })
      })
    })
  )
}
