/**
 * The steps of the Publisher's acts that read the store: the gates of the
 * chain questions, a dependency's current headline, one act read and
 * prepared, and the webhook deliveries of an act's events. Each takes the
 * Publisher's ports and policies, read once when its layer is built.
 */
import { Effect, Option, Result } from "effect"
import type { TierProjection } from "../../access/Projection.ts"
import type { Delivery } from "../../model/Delivery.ts"
import type { EntityRecord } from "../../model/Entity.ts"
import type { PublishRequest } from "../../model/PublishRequest.ts"
import type { EventDraft } from "../../model/WebhookEvent.ts"
import type { AlertRuleRepository } from "../../ports/AlertRuleRepository.ts"
import type { DeliveryOutbox } from "../../ports/DeliveryOutbox.ts"
import type { EntityRepository } from "../../ports/EntityRepository.ts"
import type { IdGenerator } from "../../ports/IdGenerator.ts"
import type { RubricRepository } from "../../ports/RubricRepository.ts"
import type { ScorecardRepository, StoredScorecard } from "../../ports/ScorecardRepository.ts"
import type { Transaction } from "../../ports/Transaction.ts"
import type { Dependency } from "../../scoring/DependencyDrag.ts"
import type { Scoring } from "../../scoring/Scoring.ts"
import { newDelivery } from "../../webhooks/DeliveryStateMachine.ts"
import { addressEvent, serializeEvent } from "../../webhooks/EventPayloads.ts"
import { preparePublication } from "./PublishAct.ts"

/** What the Publisher works with: its stores, and the scoring core and tier projection in context. */
export interface PublisherPorts {
  readonly entities: EntityRepository["Service"]
  readonly scorecards: ScorecardRepository["Service"]
  readonly rubric: RubricRepository["Service"]
  readonly rules: AlertRuleRepository["Service"]
  readonly outbox: DeliveryOutbox["Service"]
  readonly ids: IdGenerator["Service"]
  readonly tx: Transaction["Service"]
  readonly scoring: Scoring["Service"]
  readonly projection: TierProjection
}

/** The gate of each chain question, as the rubric stores them now. */
export const chainGates = (ports: PublisherPorts) =>
  Effect.map(ports.rubric.questions("chain"), (questions) => {
    const gateOf = new Map(questions.map((q) => [q.id, q.gate ?? null]))
    return (id: string) => gateOf.get(id)
  })

/**
 * One delivery per rule matching each event of each act, in act, event then
 * rule order; the rules of every event are read at once.
 */
export const deliveriesForActs = Effect.fnUntraced(function* (
  ports: PublisherPorts,
  acts: ReadonlyArray<{ readonly events: ReadonlyArray<EventDraft>; readonly at: number }>
) {
  const events = acts.flatMap((act) => act.events.map((event) => ({ event, at: act.at })))
  const rulesOf = yield* ports.rules.matchingEach(events.map((e) => e.event))
  const deliveries: Array<Delivery> = []
  for (const [i, { event, at }] of events.entries()) {
    for (const rule of rulesOf[i] ?? []) {
      const delivery_id = yield* ports.ids.uuid
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

/** One delivery per rule matching each event, in event then rule order. */
export const deliveriesFor = (ports: PublisherPorts, events: ReadonlyArray<EventDraft>, at: number) =>
  deliveriesForActs(ports, [{ events, at }])

/** A dependency's current headline: its latest published composite, or null when unrated. */
const resolveDependency = (ports: PublisherPorts, dep: StoredScorecard["dependencies"][number]) =>
  Effect.gen(function* () {
    const found = yield* ports.entities.findBySlug(dep.entity_type, dep.slug)
    if (Option.isNone(found)) return { ...dep, composite_score: null } satisfies Dependency
    const card = yield* ports.scorecards.latest(dep.entity_type, found.value.id, "published")
    return {
      ...dep,
      composite_score: Option.isSome(card) ? card.value.composite_score : null
    } satisfies Dependency
  })

/** Reads what one act needs of the store and prepares it; `entityAfter` is the record once the act is done. */
export const prepareAct = Effect.fnUntraced(function* (
  ports: PublisherPorts,
  request: PublishRequest,
  entity: EntityRecord | undefined,
  entityAfter: EntityRecord | undefined,
  now: number
) {
  const { scorecards } = ports
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
    draft === undefined
      ? []
      : yield* Effect.forEach(draft.dependencies, (dep) => resolveDependency(ports, dep))
  const gateOf = type === "chain" && draft !== undefined ? yield* chainGates(ports) : undefined
  const prepared = preparePublication(
    { request, entity, entityAfter, draft, previous, dependencies, gateOf, at: now },
    ports.scoring.scoreSync,
    ports.projection.isPubliclyReadable
  )
  if (Result.isFailure(prepared)) return yield* prepared.failure
  return { ...prepared.success, previous }
})
