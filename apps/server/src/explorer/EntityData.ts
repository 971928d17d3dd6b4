/**
 * What an entity page shows, read for its caller exactly as the API's routes
 * read it (the same RatingsReader calls, so the same tier gates, visibility
 * and drag-hint projection): the record, its scorecard list, and what the
 * caller's tier may read beyond it (domain scores and history from Pro;
 * questions and evidence at Enterprise), the incidents matched to a protocol
 * and a chain's quantum-readiness reading, and the name of the dependency the
 * drag hint names, read as the caller (so a name they may not read is never
 * fetched into the page). Unknown and hidden are one NotFound.
 */
import type { Capability } from "@ratings/domain/access/Capabilities"
import type { Caller } from "@ratings/domain/model/Caller"
import type { EntityRecord } from "@ratings/domain/model/Entity"
import type { EntityType } from "@ratings/domain/model/EntityType"
import type { IncidentFeedPage } from "@ratings/domain/model/Incident"
import type { QuantumChainResponse } from "@ratings/domain/model/Quantum"
import type { DomainsBody, EvidenceBody, HistoryBody, QuestionsBody } from "@ratings/domain/model/Responses"
import type { Scorecard } from "@ratings/domain/model/Scorecard"
import type { StoreError } from "@ratings/domain/ports/StoreError"
import { dragHintTarget } from "@ratings/domain/scoring/DependencyDrag"
import { Effect, Result } from "effect"
import type { ExplorerServices } from "./Pages.ts"

export interface EntityView {
  readonly type: EntityType
  readonly record: EntityRecord
  /** The scorecards as the scorecard route lists them for the caller, newest first. */
  readonly scorecards: ReadonlyArray<Scorecard>
  readonly domains: DomainsBody | undefined
  readonly history: HistoryBody | undefined
  readonly questions: QuestionsBody | undefined
  readonly evidence: EvidenceBody | undefined
  readonly incidents: IncidentFeedPage | undefined
  readonly quantum: QuantumChainResponse | undefined
  /** The name of the dependency the latest scorecard's drag hint names, when the caller may read it. */
  readonly dragSourceName: string | undefined
}

/** Incidents listed on a protocol's page (newest first; the incidents page has them all). */
export const EntityIncidents = 20

/** The read when the caller's tier may make it, else nothing (the route would refuse it). */
const ifAllowed = <A, E>(
  services: ExplorerServices,
  caller: Caller,
  capability: Capability,
  read: () => Effect.Effect<A, E>
): Effect.Effect<A | undefined, E> =>
  Result.isSuccess(services.projection.authorize(caller, capability)) ? read() : Effect.succeed(undefined)

/** The name of the dependency a drag hint names, as the caller reads it (undefined when they may not). */
const dragSourceName = (
  services: ExplorerServices,
  caller: Caller,
  scorecards: ReadonlyArray<Scorecard>
): Effect.Effect<string | undefined, StoreError> => {
  const hint = scorecards.find((s) => s.status === "published")?.largest_drag_hint
  const target = hint === null || hint === undefined ? undefined : dragHintTarget(hint)
  if (target === undefined) return Effect.succeed(undefined)
  return services.reader.detail(caller, target.entity_type, target.slug, false).pipe(
    Effect.map((record): string | undefined => record.name),
    Effect.catchTag("NotFound", () => Effect.succeed(undefined))
  )
}

/** The page's data for a caller: NotFound when the entity is unknown or not for them to see. */
export const entityView = (services: ExplorerServices, caller: Caller, type: EntityType, slug: string) =>
  Effect.gen(function* () {
    const { reader } = services
    const record = yield* reader.detail(caller, type, slug, false)
    // By the record's own slug: an identifier that is a UUID reads the same entity.
    const at = record.slug
    const scorecards = yield* reader.scorecards(caller, type, at)
    const [domains, history, questions, evidence] = yield* Effect.all([
      ifAllowed(services, caller, "domains", () => reader.domains(caller, type, at)),
      ifAllowed(services, caller, "history", () => reader.history(caller, type, at)),
      ifAllowed(services, caller, "questions", () => reader.questions(caller, type, at)),
      ifAllowed(services, caller, "evidence", () => reader.evidence(caller, type, at))
    ])
    const incidents =
      type === "protocol"
        ? yield* services.incidents.feed(
            { slug: at, min_status: "rumored", limit: EntityIncidents, offset: 0 },
            caller
          )
        : undefined
    const quantum = type === "chain" ? yield* services.quantum.chain(at) : undefined
    const dragSource = yield* dragSourceName(services, caller, scorecards.items)
    return {
      type,
      record,
      scorecards: scorecards.items,
      domains,
      history,
      questions,
      evidence,
      incidents,
      quantum,
      dragSourceName: dragSource
    } satisfies EntityView
  })
