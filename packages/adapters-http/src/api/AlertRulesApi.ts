/**
 * Alert rules and their webhook deliveries (spec part 4 "Pro and Enterprise
 * utilities", part 6 "Events", part 3 "Webhook delivery", part 7: 201, 204,
 * a non-UUID rule_id is 422). Pro tier and above; a rule belongs to the
 * account of the key that created it, and another account's rule or delivery
 * answers 404 exactly like one that does not exist. An admin JWT's rules
 * belong to the account `admin:<subject>`, as its exports do. The shapes the
 * spec leaves open are designed here: the create body (the domain's
 * AlertRule), test-webhook's answer (WebhookTestReport: one real attempt),
 * and the delivery lists (`{items, total}`: the newest `limit`). Enable,
 * rotate-secret and bulk re-fire are defined in AlertRuleOpsEndpoints.ts.
 */
import { Capabilities } from "@ratings/domain/access/Capabilities"
import {
  AlertRuleCreate,
  AlertRuleCreated,
  AlertRuleLimitReached,
  AlertRuleLimits,
  AlertRuleList
} from "@ratings/domain/model/AlertRule"
import { Delivery, DeliveryStatus, DeliveryWithAttempts } from "@ratings/domain/model/Delivery"
import { WebhookTestReport } from "@ratings/domain/model/WebhookTest"
import { ErrorReporter, Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { InsufficientTierError, MissingKeyError, NotFoundError, ServiceUnavailableError } from "./Errors.ts"
import {
  documentParameters,
  IntegerParam,
  invalidParameter,
  type ParameterDocs,
  UuidParam
} from "./Parameters.ts"
import {
  EnableEndpoint,
  RefireAccountEndpoint,
  RefireRuleEndpoint,
  RotateSecretEndpoint
} from "./AlertRuleOpsEndpoints.ts"
import { both, documentExamples, type OperationExamples } from "./Examples.ts"
import { AlertRuleCreateExample, AlertRuleExamples } from "./examples/AccountExamples.ts"

/** Page size of the delivery lists. */
export const DeliveryListLimit = { min: 1, max: 200, default: 50 } as const

const DeliveryLimitParam = IntegerParam({ minimum: DeliveryListLimit.min, maximum: DeliveryListLimit.max })

/** The delivery statuses GET /deliveries lists: failed only (the watchlist). */
export const ListedDeliveryStatuses = ["failed"] as const

export const DeliveryStatusParam = Schema.String.check(
  Schema.makeFilter((text: string) =>
    (ListedDeliveryStatuses as ReadonlyArray<string>).includes(text)
      ? undefined
      : invalidParameter(
          "literal_error",
          "Input should be 'failed': the failed deliveries are listed here; a rule's deliveries of every " +
            "status are at /alert-rules/{rule_id}/deliveries",
          text
        )
  )
)

export const AlertRuleListBody = AlertRuleList.annotate({
  identifier: "AlertRuleList",
  description: "The account's alert rules, oldest first; signing keys are never listed"
})

export const AlertRuleCreatedBody = AlertRuleCreated.annotate({
  identifier: "AlertRuleCreated",
  description: "The rule just created, with its webhook_signing_key: the only time the key is served"
})

export const DeliveryLog = Schema.Struct({
  items: Schema.Array(DeliveryWithAttempts),
  total: Schema.Int.annotate({ description: "Number of deliveries in this answer (at most limit)" })
}).annotate({
  identifier: "DeliveryLog",
  description:
    "A rule's deliveries, newest first, each with its attempts (attempt_log). body is the exact JSON text " +
    "signed and sent; signing keys are never part of it."
})
export type DeliveryLog = typeof DeliveryLog.Type

export const DeliveryListBody = Schema.Struct({
  items: Schema.Array(Delivery),
  total: Schema.Int.annotate({ description: "Number of deliveries in this answer (at most limit)" })
}).annotate({
  identifier: "DeliveryList",
  description: "Deliveries, newest first"
})
export type DeliveryListBody = typeof DeliveryListBody.Type

export const DeliveryBody = Delivery.annotate({
  identifier: "Delivery",
  description: "One webhook delivery: its event, raw body, status and schedule"
})

export const DeliveryNotFailedBody = Schema.Struct({
  detail: Schema.String.annotate({
    description: "Why: the delivery's status, and that only failed ones re-fire"
  }),
  delivery_id: Schema.String,
  status: DeliveryStatus
}).annotate({
  identifier: "DeliveryNotFailedBody",
  description: "409: the delivery is not failed (pending: still in its cycle; delivered: acknowledged)",
  examples: [
    {
      detail:
        "delivery 1fed5121-c481-42e1-ad77-8e26ab725e39 is delivered: only a failed delivery can be re-fired",
      delivery_id: "1fed5121-c481-42e1-ad77-8e26ab725e39",
      status: "delivered"
    }
  ]
})

/** 409: re-fire of a delivery that is pending or delivered. */
export class DeliveryNotFailedError extends Schema.Error<DeliveryNotFailedError>("DeliveryNotFailedError")(
  DeliveryNotFailedBody,
  {
    httpApiStatus: 409,
    description: "Conflict: only a failed delivery can be re-fired; the body gives its status"
  }
) {
  override readonly [ErrorReporter.ignore] = true
}

export const AlertRuleLimitBody = Schema.Struct({
  detail: Schema.String.annotate({ description: "Why: the account holds the most rules it may have" }),
  limit: Schema.Int.annotate({ description: "The most alert rules one account may have" })
}).annotate({
  identifier: "AlertRuleLimitBody",
  description: `409: the account already has ${AlertRuleLimits.rulesPerAccount} alert rules; delete one to create another`,
  examples: [
    {
      detail: AlertRuleLimitReached.of(AlertRuleLimits.rulesPerAccount).message,
      limit: AlertRuleLimits.rulesPerAccount
    }
  ]
})

/** 409: a create past the account's bound on rules (AlertRuleLimits.rulesPerAccount). */
export class AlertRuleLimitError extends Schema.Error<AlertRuleLimitError>("AlertRuleLimitError")(
  AlertRuleLimitBody,
  {
    httpApiStatus: 409,
    description: `Conflict: the account already has ${AlertRuleLimits.rulesPerAccount} alert rules, the most it may have`
  }
) {
  override readonly [ErrorReporter.ignore] = true
}

const Gated = [MissingKeyError, InsufficientTierError] as const

const ruleDocs: ParameterDocs = {
  rule_id: { schema: UuidParam, description: "UUID of the alert rule" }
}

const deliveryLogDocs: ParameterDocs = {
  ...ruleDocs,
  limit: {
    schema: DeliveryLimitParam,
    description: `Most deliveries listed (the newest), ${DeliveryListLimit.min} to ${DeliveryListLimit.max}`,
    default: DeliveryListLimit.default
  }
}

const failedDocs: ParameterDocs = {
  status: {
    schema: Schema.Literals(ListedDeliveryStatuses),
    description: "Which deliveries: failed (the only status listed here). Required."
  },
  limit: deliveryLogDocs.limit!
}

const refireDocs: ParameterDocs = {
  delivery_id: { schema: UuidParam, description: "UUID of the delivery (its delivery_id and webhook-id)" }
}

const tier = Capabilities.alert_rules
const tierNote = "Tier: Pro and above."

const documented = (
  summary: string,
  description: string,
  examples: OperationExamples,
  docs: ParameterDocs = {}
) =>
  OpenApi.annotations({
    summary,
    description: `${description} ${tierNote}`,
    override: { "x-required-tier": tier },
    transform: both(documentParameters(docs), documentExamples(examples))
  })

const ids = { rule_id: AlertRuleExamples.ruleId, delivery_id: AlertRuleExamples.deliveryId }

export class AlertRulesApi extends HttpApiGroup.make("alertRules").add(
  HttpApiEndpoint.get("list", "/alert-rules", {
    success: AlertRuleListBody,
    error: Gated
  }).annotateMerge(
    documented(
      "List alert rules",
      "The alert rules of the caller's account, oldest first, as {items, total}. Signing keys are never listed. " +
        `An account has at most ${AlertRuleLimits.rulesPerAccount} rules, so the list is one bounded page.`,
      { responses: { 200: AlertRuleExamples.list } }
    )
  ),
  HttpApiEndpoint.post("create", "/alert-rules", {
    payload: AlertRuleCreate,
    success: AlertRuleCreatedBody.pipe(HttpApiSchema.status(201)),
    error: [...Gated, ServiceUnavailableError, AlertRuleLimitError]
  }).annotateMerge(
    documented(
      "Create an alert rule",
      "A rule watches the conjunction of its filters (entity_types, slugs, events; empty or omitted means " +
        "all) and delivers signed webhooks to channels.webhook_url. The 201 answer carries " +
        "webhook_signing_key exactly once: store it. Saving the rule fires a webhook.test event with a " +
        "synthetic payload. The URL must be https (http only when the server runs in development) and must " +
        "not name a private, loopback or link-local address unless the server allows private targets; a " +
        'refused URL is a 422 at ["body", "channels", "webhook_url"] saying why. Names are checked again ' +
        `on the resolved address at every send. Bounds: at most ${AlertRuleLimits.slugsPerRule} slugs of at ` +
        `most ${AlertRuleLimits.slugLength} characters each (a 422 at the field says which), and at most ` +
        `${AlertRuleLimits.rulesPerAccount} rules per account: one more is a 409 {detail, limit}.`,
      { request: AlertRuleCreateExample, responses: { 201: AlertRuleExamples.created } }
    )
  ),
  HttpApiEndpoint.delete("delete", "/alert-rules/:rule_id", {
    params: { rule_id: UuidParam },
    success: HttpApiSchema.NoContent,
    error: [...Gated, NotFoundError]
  }).annotateMerge(
    documented(
      "Delete an alert rule",
      "204 with no body. A rule_id that is not a UUID is a 422; an unknown rule, or another account's, is a " +
        "404. Deliveries not yet sent for the rule are never sent; its delivery log is kept.",
      { parameters: ids },
      ruleDocs
    )
  ),
  HttpApiEndpoint.post("testWebhook", "/alert-rules/:rule_id/test-webhook", {
    params: { rule_id: UuidParam },
    success: WebhookTestReport.annotate({ identifier: "WebhookTestReport" }),
    error: [...Gated, NotFoundError]
  }).annotateMerge(
    documented(
      "Test a rule's webhook",
      "Makes one real, signed webhook.test delivery to the rule's URL now and reports how it ended (2xx " +
        "within 10 s is delivered). The attempt is recorded in the rule's delivery log; a failed test is " +
        "retried on the usual schedule and next_attempt_at says when.",
      { parameters: ids, responses: { 200: AlertRuleExamples.testWebhook } },
      ruleDocs
    )
  ),
  HttpApiEndpoint.get("deliveries", "/alert-rules/:rule_id/deliveries", {
    params: { rule_id: UuidParam },
    query: { limit: Schema.optionalKey(DeliveryLimitParam) },
    success: DeliveryLog,
    error: [...Gated, NotFoundError]
  }).annotateMerge(
    documented(
      "A rule's delivery log",
      "The rule's newest deliveries first, each with every attempt (when, outcome, status code, error, " +
        "duration), as {items, total}.",
      { parameters: { ...ids, limit: 10 }, responses: { 200: AlertRuleExamples.deliveries } },
      deliveryLogDocs
    )
  ),
  HttpApiEndpoint.get("failedDeliveries", "/deliveries", {
    query: { status: DeliveryStatusParam, limit: Schema.optionalKey(DeliveryLimitParam) },
    success: DeliveryListBody,
    error: Gated
  }).annotateMerge(
    documented(
      "Failed deliveries (the watchlist)",
      "The account's deliveries that exhausted their retries (initial attempt and 5 retries at 30 s, 5 min, " +
        "30 min, 2 h and 12 h), newest first, as {items, total}. They are never replayed automatically; " +
        "re-fire one with POST /deliveries/{delivery_id}/refire.",
      { parameters: { status: "failed", limit: 10 }, responses: { 200: AlertRuleExamples.failed } },
      failedDocs
    )
  ),
  HttpApiEndpoint.post("refire", "/deliveries/:delivery_id/refire", {
    params: { delivery_id: UuidParam },
    success: DeliveryBody,
    error: [...Gated, NotFoundError, DeliveryNotFailedError]
  }).annotateMerge(
    documented(
      "Re-fire a failed delivery",
      "Starts a new cycle of a failed delivery: the same delivery_id (receivers dedupe on it), its initial " +
        "attempt due now, then the same retries. Answers the delivery, pending again. A delivery that is not " +
        "failed is a 409 giving its status; an unknown delivery, another account's, or one whose rule was " +
        "deleted is a 404.",
      { parameters: ids, responses: { 200: AlertRuleExamples.refired } },
      refireDocs
    )
  ),
  EnableEndpoint,
  RotateSecretEndpoint,
  RefireRuleEndpoint,
  RefireAccountEndpoint
) {}
