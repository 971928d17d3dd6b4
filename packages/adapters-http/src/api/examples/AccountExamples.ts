/**
 * Examples of the routes that write or read an account's own records (alert
 * rules, webhook deliveries, coverage requests, incident reports) and of the
 * probes, in the OpenAPI document. The demo has no such records, so these are
 * answers a server with the demo imported gave, naming demo entities
 * (aave-v4, ethereum, venus); ids of the caller's own records cannot resolve
 * on another server.
 */
import { ServiceExamples } from "./ServiceExamples.ts"

const RuleId = "aabd94e5-4f84-4d3b-89ee-209b0fc9eb9f"
const DeliveryId = "1fed5121-c481-42e1-ad77-8e26ab725e39"

export const AlertRuleCreateExample = {
  name: "Aave V4 and Ethereum grade moves",
  entity_types: ["protocol", "chain"],
  slugs: ["aave-v4", "ethereum"],
  events: ["rating.grade_transition"],
  channels: { webhook_url: "https://hooks.example.com/ratings" }
}

const rule = {
  id: RuleId,
  ...AlertRuleCreateExample,
  created_at: "2026-11-29T09:31:03.567000+00:00",
  disabled: false,
  disabled_at: null,
  disabled_reason: null,
  failing_since: null
}

const attempt = {
  delivery_id: DeliveryId,
  cycle: 0,
  attempt: 0,
  started_at: "2026-11-29T09:31:06.991000+00:00",
  status_code: 503,
  outcome: "http_error",
  error: "the receiver answered 503",
  duration_ms: 48
}

const delivery = {
  delivery_id: DeliveryId,
  rule_id: RuleId,
  event: "rating.grade_transition",
  body: JSON.stringify({
    event: "rating.grade_transition",
    timestamp: "2026-11-29T09:31:06.983000+00:00",
    delivery_id: DeliveryId,
    watchlist_id: RuleId,
    data: { entity_type: "protocol", entity_slug: "aave-v4", direction: "upgrade" }
  }),
  status: "failed",
  cycle: 0,
  attempts: 6,
  next_attempt_at: null,
  first_attempt_at: "2026-11-29T09:31:06.991000+00:00",
  last_error: "the receiver answered 503",
  created_at: "2026-11-29T09:31:06.983000+00:00"
}

export const AlertRuleExamples = {
  list: { items: [rule], total: 1 },
  created: { ...rule, webhook_signing_key: "whsec_ZXhhbXBsZSBrZXksIG5vdCBhIHJlYWwgb25lIQ==" },
  testWebhook: {
    delivery_id: DeliveryId,
    delivered: false,
    outcome: "http_error",
    status_code: 503,
    elapsed_ms: 48,
    error: "the receiver answered 503",
    attempted_at: "2026-11-29T09:31:06.991000+00:00",
    next_attempt_at: "2026-11-29T09:31:36.991000+00:00"
  },
  deliveries: { items: [{ ...delivery, attempt_log: [attempt] }], total: 1 },
  failed: { items: [delivery], total: 1 },
  refired: {
    ...delivery,
    status: "pending",
    cycle: 1,
    attempts: 0,
    next_attempt_at: "2026-11-29T10:02:00.000000+00:00"
  },
  ruleId: RuleId,
  deliveryId: DeliveryId
}

/** The webhook operations: enable, rotate-secret and bulk re-fire. */
export const WebhookOpsExamples = {
  ruleId: RuleId,
  since: "2026-11-29T00:00:00+00:00",
  enabled: {
    rule,
    was_disabled_at: "2026-11-29T09:31:06.991000+00:00",
    was_disabled_reason: "every delivery attempt failed for 5 days; enable the rule once the endpoint works",
    refire: { refired: 1, more: false, delivery_ids: [DeliveryId] }
  },
  rotated: {
    ...rule,
    webhook_signing_key: "whsec_bmV3IGV4YW1wbGUga2V5LCBub3QgYSByZWFsIG9uZSE=",
    previous_key_expires_at: "2026-11-30T09:31:03.567000+00:00"
  },
  refireReport: { refired: 1, more: false, delivery_ids: [DeliveryId] }
}

export const ContactRequestExample = {
  protocol_name: "Morpho Blue",
  contact_email: "risk@example.com",
  request_type: "rating-request",
  entity_type: "protocol",
  message: "Please rate Morpho Blue: we hold positions in its markets."
}

export const ContactReceiptExample = {
  id: "4530e395-8d98-4e88-a16b-2b5abb5e2711",
  protocol_name: "Morpho Blue",
  entity_type: "protocol",
  contact_email: "risk@example.com",
  request_type: "rating-request",
  status: "open",
  created_at: "2026-11-29T09:31:38.767000+00:00"
}

const servedIncident = ServiceExamples.incidents.items[0]

export const IncidentReportExample = {
  nonce: "venus-2026-10-oracle-01",
  protocol_name: servedIncident.protocol_name,
  chain: servedIncident.chain,
  exploit_class: servedIncident.exploit_class,
  loss_estimate_usd: servedIncident.loss_estimate_usd,
  victim_addresses: ["0x0000000000000000000000000000000000000001"],
  source: { handle: "peckshield", url: "https://x.com/peckshieldalert" },
  claimed_tier: "confirmed",
  first_seen_at: servedIncident.first_seen_at
}

export const IncidentIngestExample = {
  outcome: "absorbed",
  incident_id: servedIncident.incident_id,
  status: servedIncident.status,
  served: servedIncident
}
