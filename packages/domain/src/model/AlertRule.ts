/**
 * Alert rules (spec part 4, /alert-rules; part 6, "Configuration"): what a
 * rule watches, the wire shapes of its routes, and the pure test of whether
 * an event concerns a rule. A rule watches the conjunction of its filters
 * (`entity_types`, `slugs`, `events`), each meaning "all" when empty, and
 * delivers to `channels.webhook_url`. Its signing key is served exactly once,
 * in `AlertRuleCreated` (the 201 body); its owning account never. Rules are
 * bounded (`AlertRuleLimits`): the create body's bounds are schema checks, so
 * a 422 names the field; the count per account is the repository's.
 */
import { Result, Schema } from "effect"
import * as NetAddress from "effect/net/NetAddress"
import { EntityType, EntityTypes } from "./EntityType.ts"
import { IsoDateTime, isNulFree, Slug, SlugMaxLength, SlugPattern, Uuid } from "./Primitives.ts"
import { AlertEventKind, AlertEventKinds } from "./WebhookEvent.ts"

/**
 * The host is a DNS name or IPv4 address (no space, `/`, `?`, `#`, `@`, `:`
 * or bracket), or an IPv6 literal in brackets (`[2606:4700::1111]`), then an
 * optional port. This is the shape the OpenAPI document shows; the IPv6
 * check below is the precise one.
 */
const urlPattern = /^https?:\/\/(?:[^\s/?#@:[\]]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?(?:[/?#]\S*)?$/u

const ipv6Example = "https://[2606:4700::1111]/hook"

/** Dotted IPv4 pieces as the URL parser takes them inside IPv6: 0-255, no leading zero. */
const ipv4TailPiece = /^(?:0|[1-9][0-9]{0,2})$/u

/**
 * What is wrong with a bracketed IPv6 host, or undefined when the URL has
 * none or it is well formed. It accepts exactly the IPv6 text the WHATWG URL
 * parser accepts in brackets (no zone identifier: URLs cannot carry one).
 */
export const ipv6HostProblem = (url: string): string | undefined => {
  const start = /^https?:\/\/\[/u.exec(url)
  if (start === null) return undefined
  const rest = url.slice(start[0].length)
  const end = rest.search(/[\]/?#]/u)
  if (end === -1 || rest[end] !== "]") {
    return `an IPv6 host must be closed with "]" before the port or path, as in ${ipv6Example}`
  }
  const inside = rest.slice(0, end)
  const tail = inside.slice(inside.lastIndexOf(":") + 1)
  const valid =
    /^[0-9A-Fa-f:.]+$/u.test(inside) &&
    Result.isSuccess(NetAddress.ipv6FromString(inside)) &&
    (!tail.includes(".") || tail.split(".").every((piece) => ipv4TailPiece.test(piece)))
  if (!valid) return `[${inside}] is not an IPv6 address; an IPv6 host is written as in ${ipv6Example}`
  if (!/^(?::\d{1,5})?(?:[/?#]\S*)?$/u.test(rest.slice(end + 1))) {
    return `after the IPv6 host [${inside}] only an optional :port and then a path, query or fragment may follow`
  }
  return undefined
}

/**
 * An absolute http(s) URL; the host may be a DNS name, an IPv4 address or a
 * bracketed IPv6 address. Which hosts may be called (no private or
 * link-local targets unless configured) is the target policy's decision
 * (`WebhookTargetPolicy`), taken at create time for literal addresses and at
 * send time when DNS is resolved; checking it here would be bypassed by DNS.
 */
export const WebhookUrl = Schema.String.annotate({
  description:
    "Absolute http or https URL that receives the webhook POSTs; an IPv6 host is written in brackets " +
    `(${ipv6Example})`
}).check(
  Schema.makeFilter((url: string) => ipv6HostProblem(url) ?? true, {
    expected: "an http or https URL whose IPv6 host is a valid address in brackets"
  }).abort(),
  Schema.isPattern(urlPattern, { expected: "an absolute http or https URL" }),
  Schema.isMaxLength(2048),
  isNulFree
)

export const AlertChannels = Schema.Struct({ webhook_url: WebhookUrl })
export type AlertChannels = typeof AlertChannels.Type

const RuleName = Schema.NullOr(
  Schema.String.annotate({ description: "A free label" }).check(Schema.isMaxLength(200), isNulFree)
)

/** The bounds of alert rules: rules per account, slugs per rule, characters per slug. */
export const AlertRuleLimits = {
  rulesPerAccount: 100,
  slugsPerRule: 100,
  slugLength: SlugMaxLength
} as const

/** A slug a rule watches: the entity slug pattern, at most `slugLength` characters (checked first, so a huge one is not matched). */
const WatchedSlug = Schema.String.annotate({
  description: `Kebab-case entity slug (lowercase a-z and 0-9, single hyphens between runs), at most ${AlertRuleLimits.slugLength} characters`
}).check(
  Schema.isMaxLength(AlertRuleLimits.slugLength).abort(),
  Schema.isPattern(SlugPattern, {
    expected: "a kebab-case slug (lowercase a-z, 0-9 and single hyphens, no leading or trailing hyphen)"
  })
)

/**
 * POST /alert-rules body. Omitted filters mean "all". Slugs change on rename
 * (spec part 2), so a rule naming a slug stops matching after one; events
 * carry `data.entity_id` for receivers that need more.
 */
export const AlertRuleCreate = Schema.Struct({
  name: Schema.optionalKey(RuleName),
  entity_types: Schema.optionalKey(
    Schema.Array(EntityType)
      .annotate({ description: "Entity types watched; empty or omitted means all" })
      .check(Schema.isMaxLength(EntityTypes.length))
  ),
  slugs: Schema.optionalKey(
    Schema.Array(WatchedSlug)
      .annotate({
        description: `Entity slugs watched, at most ${AlertRuleLimits.slugsPerRule}; empty or omitted means all`
      })
      .check(Schema.isMaxLength(AlertRuleLimits.slugsPerRule))
  ),
  events: Schema.optionalKey(
    Schema.Array(AlertEventKind)
      .annotate({ description: "Event kinds watched; empty or omitted means all" })
      .check(Schema.isMaxLength(AlertEventKinds.length))
  ),
  channels: AlertChannels
})
export type AlertRuleCreate = typeof AlertRuleCreate.Type

const ruleFields = {
  id: Uuid,
  name: RuleName,
  entity_types: Schema.Array(EntityType),
  slugs: Schema.Array(Slug),
  events: Schema.Array(AlertEventKind),
  channels: AlertChannels,
  created_at: IsoDateTime
}

/**
 * The health of a rule's endpoint: a rule whose every attempt failed for the
 * configured period is disabled (its events are recorded, not sent) until
 * its owner enables it again; a delivered attempt ends a failing streak.
 */
const healthFields = {
  disabled: Schema.Boolean.annotate({
    description: "Whether the endpoint is disabled: its events are recorded but not sent until it is enabled"
  }),
  disabled_at: Schema.NullOr(IsoDateTime).annotate({ description: "When the endpoint was disabled" }),
  disabled_reason: Schema.NullOr(Schema.String).annotate({ description: "Why the endpoint was disabled" }),
  failing_since: Schema.NullOr(IsoDateTime).annotate({
    description: "Start of the current run of failed attempts (null after a delivered one)"
  })
}
export const AlertRuleHealth = Schema.Struct(healthFields)
export type AlertRuleHealth = typeof AlertRuleHealth.Type

/** A healthy endpoint: what a new rule, or one just enabled, has. */
export const HealthyEndpoint: AlertRuleHealth = {
  disabled: false,
  disabled_at: null,
  disabled_reason: null,
  failing_since: null
}

/** A rule as GET /alert-rules lists it: no signing key, no account. */
export const AlertRule = Schema.Struct({ ...ruleFields, ...healthFields })
export type AlertRule = typeof AlertRule.Type

/** What a rule is configured with (the create request, normalized), without its health. */
export type AlertRuleSettings = Omit<AlertRule, keyof AlertRuleHealth>

/** The 201 body of POST /alert-rules: the one place the signing key is served. */
export const AlertRuleCreated = Schema.Struct({
  ...ruleFields,
  ...healthFields,
  webhook_signing_key: Schema.String.annotate({
    description:
      "Signing key (whsec_ followed by base64 of 32 bytes). Shown once: store it. X-Service-Signature is the " +
      "lowercase hex HMAC-SHA256 of the raw body keyed with this whole string; webhook-signature follows " +
      "Standard Webhooks with this secret."
  })
})
export type AlertRuleCreated = typeof AlertRuleCreated.Type

export const AlertRuleList = Schema.Struct({ items: Schema.Array(AlertRule), total: Schema.Int })
export type AlertRuleList = typeof AlertRuleList.Type

/** A rule as created: what repositories store and never serve as such (health starts healthy). */
export interface AlertRuleRecord extends AlertRuleSettings {
  readonly account_id: string
  readonly signing_key: string
}

/** A create that would give the account more than `limit` rules: nothing is stored. */
export class AlertRuleLimitReached extends Schema.TaggedError<AlertRuleLimitReached>()(
  "AlertRuleLimitReached",
  {
    limit: Schema.Int,
    message: Schema.String
  }
) {
  static readonly of = (limit: number) =>
    new AlertRuleLimitReached({
      limit,
      message: `this account has ${limit} alert rules, the most it may have: delete one to create another`
    })
}

export class AlertRuleNotFound extends Schema.TaggedError<AlertRuleNotFound>()("AlertRuleNotFound", {
  rule_id: Schema.String
}) {}

/** The filters of a create request with omitted ones as "all" and duplicates dropped. */
export const normalizeFilters = (
  request: AlertRuleCreate
): Pick<AlertRule, "name" | "entity_types" | "slugs" | "events" | "channels"> => ({
  name: request.name ?? null,
  entity_types: [...new Set(request.entity_types ?? [])],
  slugs: [...new Set(request.slugs ?? [])],
  events: [...new Set(request.events ?? [])],
  channels: { webhook_url: request.channels.webhook_url }
})

/** The rule as served, from what is stored and the health of its endpoint. */
export const toAlertRule = (
  record: AlertRuleRecord,
  health: AlertRuleHealth = HealthyEndpoint
): AlertRule => ({
  id: record.id,
  name: record.name,
  entity_types: record.entity_types,
  slugs: record.slugs,
  events: record.events,
  channels: record.channels,
  created_at: record.created_at,
  ...health
})

/** The 201 body, from what was just stored. */
export const toAlertRuleCreated = (record: AlertRuleRecord): AlertRuleCreated => ({
  ...toAlertRule(record),
  webhook_signing_key: record.signing_key
})

/** What `matches` reads of an event: its kind and the entity it concerns. */
export interface MatchableEvent {
  readonly event: string
  readonly data: { readonly entity_type: EntityType; readonly entity_slug: string }
}

/**
 * Whether a rule wants an event: every non-empty filter must admit it.
 * `webhook.test` never matches: it is sent to one rule on request.
 */
export const matches = (
  rule: Pick<AlertRule, "entity_types" | "slugs" | "events">,
  event: MatchableEvent
): boolean => {
  if (event.event === "webhook.test") return false
  if (rule.events.length > 0 && !(rule.events as ReadonlyArray<string>).includes(event.event)) return false
  if (rule.entity_types.length > 0 && !rule.entity_types.includes(event.data.entity_type)) return false
  if (rule.slugs.length > 0 && !rule.slugs.includes(event.data.entity_slug)) return false
  return true
}
