/**
 * Builders of webhook event bodies (spec part 6, "Delivery format") from
 * published scorecard figures, and their serialisation to the raw body. A
 * publish emits, per entity, `rating.new` when there was no previous
 * published scorecard; otherwise `rating.changed` when the composite score or
 * the letter grade moved, and `rating.grade_transition` too when the grade
 * moved. A publish that moves neither emits nothing, and `eventsForAct` says
 * nothing of an entity a subscriber cannot read. `serializeEvent` writes the
 * keys in a fixed order, so the bytes signed are the bytes sent.
 */
import type { AlertRule } from "../model/AlertRule.ts"
import { isoOf } from "../model/Delivery.ts"
import type { EntityType } from "../model/EntityType.ts"
import type {
  DomainAdded,
  DomainChange,
  DomainRemoved,
  EventDraft,
  GradeDirection,
  RatingFigures,
  WebhookEvent
} from "../model/WebhookEvent.ts"
import { type Grade, Grades } from "../scoring/GradeLadder.ts"

/** The entity a publish concerns. */
export interface EventEntity {
  readonly entity_type: EntityType
  readonly slug: string
  readonly id: string
}

/**
 * The headline figures of a published scorecard. Domain scores are 0-1
 * fractions; a domain that is absent or null did not fire for that scorecard.
 */
export interface PublishedFigures {
  readonly composite_score: number
  readonly letter_grade: Grade
  readonly domain_scores: { readonly [domain: string]: number | null | undefined }
}

export interface DomainDiff {
  readonly domain_changes: ReadonlyArray<DomainChange>
  readonly domains_added: ReadonlyArray<DomainAdded>
  readonly domains_removed: ReadonlyArray<DomainRemoved>
}

const firedDomains = (scores: PublishedFigures["domain_scores"]): Map<string, number> => {
  const fired = new Map<string, number>()
  for (const [domain, score] of Object.entries(scores)) {
    if (typeof score === "number") fired.set(domain, score)
  }
  return fired
}

const byDomain = (a: { readonly domain: string }, b: { readonly domain: string }): number =>
  a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0

/**
 * Domains whose fraction changed (present on both sides), and domains that
 * appeared or disappeared, each sorted by domain name.
 */
export const domainDiff = (
  previous: PublishedFigures["domain_scores"] | undefined,
  current: PublishedFigures["domain_scores"]
): DomainDiff => {
  const before = firedDomains(previous ?? {})
  const after = firedDomains(current)
  const domain_changes: Array<DomainChange> = []
  const domains_added: Array<DomainAdded> = []
  const domains_removed: Array<DomainRemoved> = []
  for (const [domain, now] of after) {
    const then = before.get(domain)
    if (then === undefined) domains_added.push({ domain, current: now })
    else if (then !== now) domain_changes.push({ domain, previous: then, current: now })
  }
  for (const [domain, then] of before) {
    if (!after.has(domain)) domains_removed.push({ domain, previous: then })
  }
  return {
    domain_changes: domain_changes.sort(byDomain),
    domains_added: domains_added.sort(byDomain),
    domains_removed: domains_removed.sort(byDomain)
  }
}

const figuresOf = (figures: PublishedFigures): RatingFigures => ({
  composite_score: figures.composite_score,
  letter_grade: figures.letter_grade
})

const ratingData = (previous: PublishedFigures, current: PublishedFigures, entity: EventEntity) => ({
  entity_type: entity.entity_type,
  entity_slug: entity.slug,
  entity_id: entity.id,
  previous: figuresOf(previous),
  current: figuresOf(current),
  ...domainDiff(previous.domain_scores, current.domain_scores)
})

/** Whether the headline figures moved between two publishes. */
export const ratingMoved = (previous: PublishedFigures, current: PublishedFigures): boolean =>
  previous.composite_score !== current.composite_score || previous.letter_grade !== current.letter_grade

/** `rating.changed`, or undefined when neither the composite nor the grade moved. */
export const ratingChanged = (
  previous: PublishedFigures,
  current: PublishedFigures,
  entity: EventEntity,
  at: number
): Extract<EventDraft, { event: "rating.changed" }> | undefined =>
  ratingMoved(previous, current)
    ? { event: "rating.changed", timestamp: isoOf(at), data: ratingData(previous, current, entity) }
    : undefined

/** Grades run best first, so a smaller index is a better grade. */
export const gradeDirection = (previous: Grade, current: Grade): GradeDirection | undefined => {
  const before = Grades.indexOf(previous)
  const after = Grades.indexOf(current)
  return after < before ? "upgrade" : after > before ? "downgrade" : undefined
}

/** `rating.grade_transition`, or undefined when the letter grade did not move. */
export const gradeTransition = (
  previous: PublishedFigures,
  current: PublishedFigures,
  entity: EventEntity,
  at: number
): Extract<EventDraft, { event: "rating.grade_transition" }> | undefined => {
  const direction = gradeDirection(previous.letter_grade, current.letter_grade)
  if (direction === undefined) return undefined
  return {
    event: "rating.grade_transition",
    timestamp: isoOf(at),
    data: {
      ...ratingData(previous, current, entity),
      direction,
      previous_grade: previous.letter_grade,
      current_grade: current.letter_grade
    }
  }
}

/** `rating.new`: the first published scorecard of an entity. Every fired domain is "added". */
export const newRating = (
  current: PublishedFigures,
  entity: EventEntity,
  at: number
): Extract<EventDraft, { event: "rating.new" }> => ({
  event: "rating.new",
  timestamp: isoOf(at),
  data: {
    entity_type: entity.entity_type,
    entity_slug: entity.slug,
    entity_id: entity.id,
    previous: null,
    current: figuresOf(current),
    ...domainDiff(undefined, current.domain_scores)
  }
})

/** The events a publish emits, in delivery order. */
export const eventsForPublish = (
  previous: PublishedFigures | undefined,
  current: PublishedFigures,
  entity: EventEntity,
  at: number
): ReadonlyArray<EventDraft> => {
  if (previous === undefined) return [newRating(current, entity, at)]
  const events: Array<EventDraft> = []
  const changed = ratingChanged(previous, current, entity, at)
  if (changed !== undefined) events.push(changed)
  const transition = gradeTransition(previous, current, entity, at)
  if (transition !== undefined) events.push(transition)
  return events
}

/** What a subscriber could read of an entity at one moment: whether it is readable, and its rating. */
export interface Sighting {
  /** The entity is readable through the API without the admin bypass (published, active, not private). */
  readonly readable: boolean
  /** Its latest published figures, or undefined when it has no published scorecard. */
  readonly figures: PublishedFigures | undefined
}

/**
 * The events of an act (a publish, a status change, or both at once) that
 * takes an entity from `before` to `after`. An event names only an entity a
 * subscriber can read once the act is done, and says what changed for someone
 * who could read it: nothing while it stays hidden; `rating.new` when its
 * rating becomes readable (a first publication on a readable entity, or an
 * entity with a published rating becoming readable, whatever was published
 * while it was hidden); otherwise what `eventsForPublish` says.
 */
export const eventsForAct = (
  before: Sighting,
  after: Sighting,
  entity: EventEntity,
  at: number
): ReadonlyArray<EventDraft> => {
  if (!after.readable || after.figures === undefined) return []
  if (!before.readable || before.figures === undefined) return [newRating(after.figures, entity, at)]
  return eventsForPublish(before.figures, after.figures, entity, at)
}

/** The entity id of the synthetic test event: the nil UUID, which no entity has. */
export const TestEntityId = "00000000-0000-0000-0000-000000000000"

/**
 * `webhook.test`: a synthetic `rating.changed`-shaped event marked
 * `data.test: true`. It names the rule's first watched type and slug, when it
 * has them, so a receiver that routes on those exercises its real path.
 */
export const webhookTest = (
  rule: Pick<AlertRule, "entity_types" | "slugs">,
  at: number
): Extract<EventDraft, { event: "webhook.test" }> => ({
  event: "webhook.test",
  timestamp: isoOf(at),
  data: {
    entity_type: rule.entity_types[0] ?? "protocol",
    entity_slug: rule.slugs[0] ?? "example-protocol",
    entity_id: TestEntityId,
    previous: { composite_score: 72.4, letter_grade: "BBB" },
    current: { composite_score: 76.1, letter_grade: "A" },
    domain_changes: [{ domain: "security", previous: 0.7, current: 0.78 }],
    domains_added: [],
    domains_removed: [],
    test: true
  }
})

/** An event addressed to one rule: the body of one delivery. */
export const addressEvent = (
  draft: EventDraft,
  address: { readonly delivery_id: string; readonly watchlist_id: string }
): WebhookEvent =>
  ({
    event: draft.event,
    timestamp: draft.timestamp,
    delivery_id: address.delivery_id,
    watchlist_id: address.watchlist_id,
    data: draft.data
  }) as WebhookEvent

const canonicalFigures = (figures: RatingFigures) => ({
  composite_score: figures.composite_score,
  letter_grade: figures.letter_grade
})

const canonicalData = (event: WebhookEvent): Record<string, unknown> => {
  const data = event.data
  const common = {
    entity_type: data.entity_type,
    entity_slug: data.entity_slug,
    entity_id: data.entity_id,
    previous: data.previous === null ? null : canonicalFigures(data.previous),
    current: canonicalFigures(data.current),
    domain_changes: data.domain_changes.map((c) => ({
      domain: c.domain,
      previous: c.previous,
      current: c.current
    })),
    domains_added: data.domains_added.map((c) => ({ domain: c.domain, current: c.current })),
    domains_removed: data.domains_removed.map((c) => ({ domain: c.domain, previous: c.previous }))
  }
  switch (event.event) {
    case "rating.grade_transition":
      return {
        ...common,
        direction: event.data.direction,
        previous_grade: event.data.previous_grade,
        current_grade: event.data.current_grade
      }
    case "webhook.test":
      return { ...common, test: true }
    default:
      return common
  }
}

/**
 * The raw body: compact JSON with the keys in the documented order, so
 * `serializeEvent(JSON.parse(body))` gives `body` back and the signature
 * covers exactly the bytes that are sent.
 */
export const serializeEvent = (event: WebhookEvent): string =>
  JSON.stringify({
    event: event.event,
    timestamp: event.timestamp,
    delivery_id: event.delivery_id,
    watchlist_id: event.watchlist_id,
    data: canonicalData(event)
  })
