/**
 * The routes that operate a rule's webhook, added to the alert-rules group:
 * enable a disabled endpoint (optionally re-firing what failed or was held
 * while it was down), rotate the signing key with an overlap during which
 * deliveries carry both signatures, and bulk re-fire of failed deliveries
 * since a time, for one rule or the whole account, bounded per call. Pro
 * tier and above; another account's rule answers 404 like an unknown one.
 */
import { Capabilities } from "@ratings/domain/access/Capabilities"
import {
  RefireBatchLimit,
  RefireReport,
  RotationOverlap,
  RuleEnabled,
  SecretRotated
} from "@ratings/domain/model/WebhookOperations"
import { Schema } from "effect"
import { HttpApiEndpoint, OpenApi } from "effect/http-api"
import { InsufficientTierError, MissingKeyError, NotFoundError } from "./Errors.ts"
import { both, documentExamples, type OperationExamples } from "./Examples.ts"
import { WebhookOpsExamples } from "./examples/AccountExamples.ts"
import { SinceParam } from "./IncidentsApi.ts"
import {
  BooleanParam,
  documentParameters,
  IntegerParam,
  type ParameterDocs,
  UuidParam
} from "./Parameters.ts"

const Gated = [MissingKeyError, InsufficientTierError] as const

const documented = (summary: string, description: string, examples: OperationExamples, docs: ParameterDocs) =>
  OpenApi.annotations({
    summary,
    description: `${description} Tier: Pro and above.`,
    override: { "x-required-tier": Capabilities.alert_rules },
    transform: both(documentParameters(docs), documentExamples(examples))
  })

const RefireLimitParam = IntegerParam({ minimum: 1, maximum: RefireBatchLimit })
const OverlapParam = IntegerParam({ minimum: 0, maximum: RotationOverlap.maxSeconds })

const ruleId = { schema: UuidParam, description: "UUID of the alert rule" }

const refireDocs: ParameterDocs = {
  rule_id: ruleId,
  since: {
    schema: Schema.String.annotate({ format: "date-time" }),
    description:
      "ISO 8601 date-time with a zone: deliveries that failed since then (their last cycle began at or " +
      "after it; one held unsent, created at or after it) are re-fired. Required. " +
      "Percent-encode a +00:00 offset as %2B00%3A00."
  },
  limit: {
    schema: RefireLimitParam,
    description: `Most deliveries re-fired by this call, 1 to ${RefireBatchLimit}`,
    default: RefireBatchLimit
  }
}

const refireDescription =
  "Each failed delivery starts a new cycle: the same delivery_id (receivers dedupe on it), its initial " +
  `attempt due now, then the usual retries. Oldest first, at most ${RefireBatchLimit} per call; the answer ` +
  "says how many were re-fired and whether more remain (call again: re-fired ones are pending, so the " +
  "next call takes the rest)."

export const EnableEndpoint = HttpApiEndpoint.post("enable", "/alert-rules/:rule_id/enable", {
  params: { rule_id: UuidParam },
  query: { refire: Schema.optionalKey(BooleanParam) },
  success: RuleEnabled,
  error: [...Gated, NotFoundError]
}).annotateMerge(
  documented(
    "Enable a rule's webhook endpoint",
    "An endpoint whose every delivery attempt failed for the server's set period (5 days by default) is " +
      "disabled: the rule shows disabled, disabled_at and disabled_reason, and its new events are recorded " +
      "(failed, not sent) instead of sent. This enables it again. With refire=true, the rule's " +
      `deliveries that failed since the endpoint began failing are re-fired too (at most ${RefireBatchLimit}; ` +
      "refire.more says whether more remain: re-fire them with refire-failed). Enabling a rule that is not " +
      "disabled changes nothing but its failing count.",
    {
      parameters: { rule_id: WebhookOpsExamples.ruleId, refire: true },
      responses: { 200: WebhookOpsExamples.enabled }
    },
    {
      rule_id: ruleId,
      refire: {
        schema: Schema.Boolean,
        description: "Re-fire what failed or was held while it was down",
        default: false
      }
    }
  )
)

export const RotateSecretEndpoint = HttpApiEndpoint.post(
  "rotateSecret",
  "/alert-rules/:rule_id/rotate-secret",
  {
    params: { rule_id: UuidParam },
    query: { overlap_seconds: Schema.optionalKey(OverlapParam) },
    success: SecretRotated,
    error: [...Gated, NotFoundError]
  }
).annotateMerge(
  documented(
    "Rotate a rule's signing key",
    "Issues a new signing key, answered this once (webhook_signing_key). For the overlap (overlap_seconds, " +
      `default ${RotationOverlap.defaultSeconds} = 24 h, at most ${RotationOverlap.maxSeconds} = 7 days) ` +
      "every delivery's webhook-signature header carries two space-separated v1 signatures, by the new key " +
      "and by the old one, so a receiver still holding the old key keeps verifying; X-Service-Signature is " +
      "always the single signature by the new key. When the overlap ends the old key is destroyed; " +
      "overlap_seconds=0 destroys it at once. A rotation during an overlap destroys the key it kept.",
    {
      parameters: { rule_id: WebhookOpsExamples.ruleId, overlap_seconds: RotationOverlap.defaultSeconds },
      responses: { 200: WebhookOpsExamples.rotated }
    },
    {
      rule_id: ruleId,
      overlap_seconds: {
        schema: OverlapParam,
        description: "How long the old key keeps signing beside the new one, in seconds",
        default: RotationOverlap.defaultSeconds
      }
    }
  )
)

const refireQuery = { since: SinceParam, limit: Schema.optionalKey(RefireLimitParam) }
const refireExamples = (ruleIdExample?: string): OperationExamples => ({
  parameters: {
    ...(ruleIdExample === undefined ? {} : { rule_id: ruleIdExample }),
    since: WebhookOpsExamples.since,
    limit: 100
  },
  responses: { 200: WebhookOpsExamples.refireReport }
})

export const RefireRuleEndpoint = HttpApiEndpoint.post(
  "refireRuleFailed",
  "/alert-rules/:rule_id/refire-failed",
  {
    params: { rule_id: UuidParam },
    query: refireQuery,
    success: RefireReport,
    error: [...Gated, NotFoundError]
  }
).annotateMerge(
  documented(
    "Re-fire a rule's failed deliveries",
    `The rule's deliveries that failed since the given time are re-fired. ${refireDescription}`,
    refireExamples(WebhookOpsExamples.ruleId),
    refireDocs
  )
)

export const RefireAccountEndpoint = HttpApiEndpoint.post(
  "refireAccountFailed",
  "/deliveries/refire-failed",
  {
    query: refireQuery,
    success: RefireReport,
    error: Gated
  }
).annotateMerge(
  documented(
    "Re-fire the account's failed deliveries",
    `The deliveries of every rule of the caller's account that failed since the given time are re-fired. ${refireDescription}`,
    refireExamples(),
    refireDocs
  )
)
