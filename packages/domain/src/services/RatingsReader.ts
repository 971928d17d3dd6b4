/**
 * Use case: reading ratings (spec parts 2, 4 and 5). Every read route of the
 * seven entity types goes through here, so tier gating, visibility and the
 * "not found, exactly like an unknown slug" rule are applied in one place.
 *
 * The service is defined here; its reads live beside it in reader/: the
 * shared steps (ReadAccess.ts: gate, lookup, visibility, hidden names), the
 * cached entity reads (EntityReads.ts), the per-entity rating reads
 * (RatingReads.ts) and the methodology. Every rule of who sees what is read
 * from the `Projection` in context; the methodology's names from the `Branding`.
 */
import { Context, Effect, Layer } from "effect"
import { Projection } from "../access/Projection.ts"
import type { Caller } from "../model/Caller.ts"
import type { EntityRecord } from "../model/Entity.ts"
import type { EntityType } from "../model/EntityType.ts"
import type {
  DomainsBody,
  EvidenceBody,
  HistoryBody,
  MethodologyBody,
  QuestionsBody,
  RubricBody
} from "../model/Responses.ts"
import type { Scorecard, ScorecardDetail } from "../model/Scorecard.ts"
import { Branding } from "../model/ServiceInfo.ts"
import { EntityRepository } from "../ports/EntityRepository.ts"
import { RubricRepository } from "../ports/RubricRepository.ts"
import { ScorecardRepository } from "../ports/ScorecardRepository.ts"
import type { Page, StoreError } from "../ports/StoreError.ts"
import { entityDetail, entityScorecards, type ListRequest, listEntities } from "./reader/EntityReads.ts"
import { type ListSnapshot, listSnapshot } from "./reader/ListSnapshot.ts"
import { methodology } from "./reader/Methodology.ts"
import type { NotFound, ReadError, ReaderPorts } from "./reader/ReadAccess.ts"
import { scorecardsOfMany } from "./reader/ScorecardBatch.ts"
import { domains, evidence, history, questions, rubric, scorecardById } from "./reader/RatingReads.ts"

export type { ListRequest } from "./reader/EntityReads.ts"
export {
  type ListKeys,
  type ListSnapshot,
  listKeysOf,
  pageOfSnapshot,
  type SnapshotPage
} from "./reader/ListSnapshot.ts"
export { type HiddenNames, hiddenNames, projectRecord } from "./reader/PublicRecord.ts"
export { isUuid, NotFound } from "./reader/ReadAccess.ts"

export class RatingsReader extends Context.Service<
  RatingsReader,
  {
    readonly list: (caller: Caller, request: ListRequest) => Effect.Effect<Page<EntityRecord>, StoreError>
    /**
     * The whole list of a type as a non-admin caller is served it, for
     * `pageOfSnapshot` to answer any page of it exactly as `list` would
     * (incomplete beyond `maxItems` records).
     */
    readonly listSnapshot: (
      caller: Caller,
      type: EntityType,
      maxItems: number
    ) => Effect.Effect<ListSnapshot, StoreError>
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
    /**
     * The scorecard lists of many entities of a type at once, each as the
     * caller's tier lists it on the scorecard route (reader/ScorecardBatch.ts):
     * for listed entities (the ids of `list` or `listSnapshot` records).
     */
    readonly scorecardsOfMany: (
      caller: Caller,
      type: EntityType,
      entityIds: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlyMap<string, ReadonlyArray<Scorecard>>, StoreError>
  }
>()("@ratings/domain/services/RatingsReader") {
  /**
   * The reader over the stores, with the tier projection in context (read
   * once, here). Each read is a named function of reader/, given the ports.
   */
  static readonly layer = Layer.effect(
    RatingsReader,
    Effect.gen(function* () {
      const ports: ReaderPorts = {
        entities: yield* EntityRepository,
        scorecards: yield* ScorecardRepository,
        rubric: yield* RubricRepository,
        projection: yield* Projection
      }
      const branding = yield* Branding
      return RatingsReader.of({
        list: (caller, request) => listEntities(ports, caller, request),
        listSnapshot: (caller, type, maxItems) => listSnapshot(ports, caller, type, maxItems),
        detail: (caller, type, identifier, includeInactive) =>
          entityDetail(ports, caller, type, identifier, includeInactive),
        scorecards: (caller, type, idOrSlug) => entityScorecards(ports, caller, type, idOrSlug),
        domains: (caller, type, slug) => domains(ports, caller, type, slug),
        history: (caller, type, slug) => history(ports, caller, type, slug),
        questions: (caller, type, slug) => questions(ports, caller, type, slug),
        rubric: (caller, type, slug) => rubric(ports, caller, type, slug),
        evidence: (caller, type, slug) => evidence(ports, caller, type, slug),
        scorecardById: (caller, type, scorecardId) => scorecardById(ports, caller, type, scorecardId),
        methodology: () => methodology(ports, branding),
        scorecardsOfMany: (caller, type, entityIds) => scorecardsOfMany(ports, caller, type, entityIds)
      })
    })
  )
}
