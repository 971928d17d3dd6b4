/**
 * The steps every read of RatingsReader is made of: the tier gate, the lookup
 * by id or slug, "not found, exactly like an unknown slug", and what a record
 * or a drag hint served to this caller may name. Each takes the reader's ports
 * (read once when the layer is built) and does the queries the read did
 * inline, no more.
 */
import { Effect, Option, Result, Schema } from "effect"
import type { AccessDenied, Capability } from "../../access/Capabilities.ts"
import type { TierProjection } from "../../access/Projection.ts"
import type { Caller } from "../../model/Caller.ts"
import type { EntityRecord } from "../../model/Entity.ts"
import type { EntityType } from "../../model/EntityType.ts"
import { isUuid } from "../../model/Identifiers.ts"
import type { Question } from "../../model/Question.ts"
import type { EntityRepository, UnreadableRef } from "../../ports/EntityRepository.ts"
import type { RubricRepository } from "../../ports/RubricRepository.ts"
import type { ScorecardRepository, StoredScorecard } from "../../ports/ScorecardRepository.ts"
import type { StoreError } from "../../ports/StoreError.ts"
import { BridgeQuestionCatalogue } from "../../scoring/BridgeRubric.ts"
import { dragHintTarget, typeOnlyDragHint } from "../../scoring/DependencyDrag.ts"
import { defaultDomainWeights } from "../../scoring/ScoreEntity.ts"
import { hiddenNames } from "./PublicRecord.ts"

/** Unknown, hidden, or (for non-admins) not published: all answer the same 404. */
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", {}) {}

export type ReadError = NotFound | AccessDenied | StoreError

/** What the reads of RatingsReader work with: the stores, and the tier projection in context. */
export interface ReaderPorts {
  readonly entities: EntityRepository["Service"]
  readonly scorecards: ScorecardRepository["Service"]
  readonly rubric: RubricRepository["Service"]
  readonly projection: TierProjection
}

/** Spec part 2 Identifiers rule 1: a UUID parse is tried first; if it fails, the value is a slug. */
export { isUuid }

/** Succeeds when the caller's tier holds the capability, else fails with its AccessDenied. */
export const gate = (ports: ReaderPorts, caller: Caller, capability: Capability) => {
  const r = ports.projection.authorize(caller, capability)
  return Result.isSuccess(r) ? Effect.void : Effect.fail(r.failure)
}

/** The entity an identifier names: by id when it parses as a UUID, else by slug. */
export const resolve = (ports: ReaderPorts, type: EntityType, identifier: string) =>
  isUuid(identifier) ? ports.entities.findById(type, identifier) : ports.entities.findBySlug(type, identifier)

/** An entity whose scorecards and per-entity data this caller may see, or NotFound. */
export const rated = (
  ports: ReaderPorts,
  caller: Caller,
  lookup: Effect.Effect<Option.Option<EntityRecord>, StoreError>
) =>
  Effect.flatMap(lookup, (found) =>
    Option.isSome(found) && ports.projection.areScorecardsVisible(caller, found.value)
      ? Effect.succeed(found.value)
      : Effect.fail(new NotFound())
  )

/** `rated` of the entity of a type and slug. */
export const ratedBySlug = (ports: ReaderPorts, caller: Caller, type: EntityType, slug: string) =>
  rated(ports, caller, ports.entities.findBySlug(type, slug))

/** The entity's latest published scorecard, if it has one. */
export const latestPublished = (ports: ReaderPorts, type: EntityType, entityId: string) =>
  Effect.map(ports.scorecards.latest(type, entityId, "published"), Option.getOrUndefined)

/** The domain weights a rating read shows: the scorecard's, else the type's defaults for the categories. */
export const weightsOf = (type: EntityType, record: EntityRecord, card: StoredScorecard | undefined) =>
  card?.domain_weights ?? defaultDomainWeights(type, record.categories ?? [])

/** The question catalogue of a type; bridges without a stored one read the built-in bridge rubric. */
export const questionsOf = (ports: ReaderPorts, type: EntityType) =>
  Effect.map(
    ports.rubric.questions(type),
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

/** The entity as a rating read names it. */
export const brief = (r: EntityRecord) => ({ slug: r.slug, name: r.name })

/** The types whose unreadable entities a record of `type` may not name: chains, and a bridge's or vault's organisations. */
export const hiddenTypes = (type: EntityType): ReadonlyArray<EntityType> =>
  type === "bridge" || type === "vault" ? ["chain", "organisation"] : ["chain"]

/** The hidden names of the unreadable entities read for `hiddenTypes` (in its order). */
export const hiddenOf = (unreadable: ReadonlyArray<ReadonlyArray<UnreadableRef>>) =>
  hiddenNames(unreadable[0] ?? [], unreadable[1] ?? [])

/**
 * Drag hints as this caller may read them: a hint names its dependency
 * only when the public can read that entity now (an existing, published,
 * active, non-private entity of that type and slug); otherwise it gives
 * the type alone, "largest drag: <type>" (docs/adr/0003-access-and-lists.md).
 * Admins read hints as stored. Returns the projection of one hint.
 */
export const dragHintsFor = (ports: ReaderPorts, caller: Caller, hints: ReadonlyArray<string | null>) =>
  Effect.gen(function* () {
    const replaced = new Map<string, string>()
    if (ports.projection.isAdmin(caller)) return (hint: string | null) => hint
    for (const hint of new Set(hints)) {
      const target = hint === null ? undefined : dragHintTarget(hint)
      if (hint === null || target === undefined) continue
      const named = yield* ports.entities.findBySlug(target.entity_type, target.slug)
      if (Option.isNone(named) || !ports.projection.isPubliclyReadable(named.value))
        replaced.set(hint, typeOnlyDragHint(target.entity_type))
    }
    return (hint: string | null) => (hint === null ? null : (replaced.get(hint) ?? hint))
  })
