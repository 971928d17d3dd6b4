/**
 * The body of a webhook delivery (spec part 6, "Delivery format"), for each
 * event kind the service sends. The spec fixes the envelope and the data of
 * `rating.changed`; every other kind carries the same data fields, with the
 * same types, plus fields of its own, so a receiver written for
 * `rating.changed` handles every kind unchanged. The service's additions to
 * the spec's table are additive, so spec-shaped receivers keep working.
 * Figures are the headline (dependency-dragged) ones, as the scorecard list
 * serves them: composites 0-100, domains 0-1 fractions. docs/webhooks.md
 * lists the kinds and their fields.
 */
import { Schema } from "effect"
import { EntityType } from "./EntityType.ts"
import { Fraction, IsoDateTime, Percent, Uuid } from "./Primitives.ts"
import { LetterGrade } from "./Scorecard.ts"

/** Every event kind a delivery can carry. */
export const WebhookEventKinds = [
  "rating.changed",
  "rating.grade_transition",
  "rating.new",
  "webhook.test"
] as const
export type WebhookEventKind = (typeof WebhookEventKinds)[number]
export const WebhookEventKind = Schema.Literals(WebhookEventKinds).annotate({
  description: "Event kind: rating.changed, rating.grade_transition, rating.new or webhook.test"
})

/**
 * The kinds an alert rule can watch. `webhook.test` is not among them: a
 * test event is addressed to one rule on request, never matched.
 */
export const AlertEventKinds = ["rating.changed", "rating.grade_transition", "rating.new"] as const
export type AlertEventKind = (typeof AlertEventKinds)[number]
export const AlertEventKind = Schema.Literals(AlertEventKinds).annotate({
  description: "Watched event kind: rating.changed, rating.grade_transition or rating.new"
})

export const RatingFigures = Schema.Struct({
  composite_score: Percent,
  letter_grade: LetterGrade
})
export type RatingFigures = typeof RatingFigures.Type

export const DomainChange = Schema.Struct({
  domain: Schema.String,
  previous: Fraction,
  current: Fraction
})
export type DomainChange = typeof DomainChange.Type

export const DomainAdded = Schema.Struct({ domain: Schema.String, current: Fraction })
export type DomainAdded = typeof DomainAdded.Type

export const DomainRemoved = Schema.Struct({ domain: Schema.String, previous: Fraction })
export type DomainRemoved = typeof DomainRemoved.Type

/**
 * The data of every kind, `rating.changed`'s. Beyond the spec's table:
 * `entity_id`, since slugs change on rename; and `domains_added` and
 * `domains_removed`, since the spec types both sides of a domain change as
 * numbers, so a domain present on one side only is listed there instead.
 */
const ratingDataFields = {
  entity_type: EntityType,
  entity_slug: Schema.String,
  entity_id: Uuid,
  previous: RatingFigures,
  current: RatingFigures,
  domain_changes: Schema.Array(DomainChange),
  domains_added: Schema.Array(DomainAdded),
  domains_removed: Schema.Array(DomainRemoved)
}

export const RatingChangedData = Schema.Struct(ratingDataFields)
export type RatingChangedData = typeof RatingChangedData.Type

export const GradeDirection = Schema.Literals(["upgrade", "downgrade"])
export type GradeDirection = typeof GradeDirection.Type

/** Sent besides `rating.changed` for the same publish, so a rule watching only that hears every change. */
export const GradeTransitionData = Schema.Struct({
  ...ratingDataFields,
  direction: GradeDirection,
  previous_grade: LetterGrade,
  current_grade: LetterGrade
})
export type GradeTransitionData = typeof GradeTransitionData.Type

/** An entity's rating became readable: no `previous`, and every domain in `domains_added`. */
export const NewRatingData = Schema.Struct({ ...ratingDataFields, previous: Schema.Null })
export type NewRatingData = typeof NewRatingData.Type

/** Synthetic, shaped exactly like `rating.changed`, so a receiver exercises its real path. */
export const WebhookTestData = Schema.Struct({ ...ratingDataFields, test: Schema.Literal(true) })
export type WebhookTestData = typeof WebhookTestData.Type

/** timestamp: when the event occurred, the same on every attempt; delivery_id: unique per delivery, the
 * same on every attempt and re-fire; watchlist_id: the id of the alert rule the delivery is for. */
const envelope = {
  timestamp: IsoDateTime,
  delivery_id: Uuid,
  watchlist_id: Uuid
}

export const RatingChangedEvent = Schema.Struct({
  event: Schema.Literal("rating.changed"),
  ...envelope,
  data: RatingChangedData
})
export type RatingChangedEvent = typeof RatingChangedEvent.Type

export const GradeTransitionEvent = Schema.Struct({
  event: Schema.Literal("rating.grade_transition"),
  ...envelope,
  data: GradeTransitionData
})
export type GradeTransitionEvent = typeof GradeTransitionEvent.Type

export const NewRatingEvent = Schema.Struct({
  event: Schema.Literal("rating.new"),
  ...envelope,
  data: NewRatingData
})
export type NewRatingEvent = typeof NewRatingEvent.Type

export const WebhookTestEvent = Schema.Struct({
  event: Schema.Literal("webhook.test"),
  ...envelope,
  data: WebhookTestData
})
export type WebhookTestEvent = typeof WebhookTestEvent.Type

/** A delivery body, discriminated by `event`. */
export const WebhookEvent = Schema.Union([
  RatingChangedEvent,
  GradeTransitionEvent,
  NewRatingEvent,
  WebhookTestEvent
]).annotate({ description: "Webhook delivery body (HTTP POST, application/json)" })
export type WebhookEvent = typeof WebhookEvent.Type

/**
 * An event before it is addressed to a rule: what a publish produces once.
 * Each matching rule turns it into its own delivery, with its own
 * delivery_id and watchlist_id.
 */
export type EventDraft =
  | { readonly event: "rating.changed"; readonly timestamp: string; readonly data: RatingChangedData }
  | {
      readonly event: "rating.grade_transition"
      readonly timestamp: string
      readonly data: GradeTransitionData
    }
  | { readonly event: "rating.new"; readonly timestamp: string; readonly data: NewRatingData }
  | { readonly event: "webhook.test"; readonly timestamp: string; readonly data: WebhookTestData }
