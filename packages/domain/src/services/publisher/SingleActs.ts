/**
 * The Publisher's acts on one entity: `publish` (the CLI's act), `setStatus`
 * (with or without a publication) and `announce` (entities an import has just
 * shown). Each reads the store, computes the act, and writes it with its
 * webhook deliveries in one transaction.
 */
import { Clock, Effect, Option } from "effect"
import type { EntityRecord } from "../../model/Entity.ts"
import { isoTimestamp } from "../../model/Primitives.ts"
import type { PublishRequest } from "../../model/PublishRequest.ts"
import type { Scorecard } from "../../model/Scorecard.ts"
import { eventsForAct } from "../../webhooks/EventPayloads.ts"
import { deliveriesFor, type PublisherPorts, prepareAct } from "./ActSteps.ts"
import {
  EntityNotFound,
  entityKey,
  figuresOf,
  type ShownEntity,
  type StatusRequest,
  type StatusResult
} from "./PublishAct.ts"

/** `Publisher.publish`: the entity's latest draft published now, with its events. */
export const publish = (ports: PublisherPorts) =>
  Effect.fn("Publisher.publish")(function* (request: PublishRequest) {
    const { entities, scorecards, outbox, tx } = ports
    const entity = Option.getOrUndefined(yield* entities.findBySlug(request.entity_type, request.slug))
    const now = yield* Clock.currentTimeMillis
    const { record, events, previous } = yield* prepareAct(ports, request, entity, undefined, now)
    const deliveries = yield* deliveriesFor(ports, events, now)
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
      readable: entity !== undefined && ports.projection.isPubliclyReadable(entity)
    }
  })

/** `Publisher.setStatus`: an entity moved to a status, and its latest draft published with it when asked. */
export const setStatus = (ports: PublisherPorts) =>
  Effect.fn("Publisher.setStatus")(function* (request: StatusRequest) {
    const { entities, scorecards, outbox, tx, projection } = ports
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
        : yield* prepareAct(ports, { entity_type: type, slug, ...request.publish }, entity, after, now)
    let events = act?.events
    if (events === undefined) {
      const card = Option.getOrUndefined(yield* scorecards.latest(type, entity.id, "published"))
      const figures = card === undefined ? undefined : figuresOf(card)
      events = eventsForAct(
        { readable: projection.isPubliclyReadable(entity), figures },
        { readable: projection.isPubliclyReadable(after), figures },
        { entity_type: type, slug: entity.slug, id: entity.id },
        now
      )
    }
    const deliveries = yield* deliveriesFor(ports, events, now)
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
      readable: projection.isPubliclyReadable(after),
      publication:
        act === undefined
          ? undefined
          : { scorecard: act.record.scorecard, previous: act.previous, deliveries: deliveries.length },
      deliveries: deliveries.length
    } satisfies StatusResult
  })

/** `Publisher.announce`: one rating.new per shown entity with a published rating. */
export const announce = (ports: PublisherPorts) =>
  Effect.fn("Publisher.announce")(function* (shown: ReadonlyArray<ShownEntity>) {
    if (shown.length === 0) return 0
    const now = yield* Clock.currentTimeMillis
    const cards = new Map<string, Scorecard>()
    for (const type of new Set(shown.map((e) => e.entity_type))) {
      const ids = shown.filter((e) => e.entity_type === type).map((e) => e.id)
      for (const [id, card] of yield* ports.scorecards.latestPublishedOf(type, ids))
        cards.set(entityKey(type, id), card)
    }
    const events = shown.flatMap((e) => {
      const card = cards.get(entityKey(e.entity_type, e.id))
      const figures = card === undefined ? undefined : figuresOf(card)
      return eventsForAct(
        { readable: false, figures },
        { readable: true, figures },
        { entity_type: e.entity_type, slug: e.slug, id: e.id },
        now
      )
    })
    const deliveries = yield* deliveriesFor(ports, events, now)
    if (deliveries.length > 0) yield* ports.tx.run(ports.outbox.enqueue(deliveries))
    return deliveries.length
  })
