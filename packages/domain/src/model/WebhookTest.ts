/**
 * The answer of POST /alert-rules/{rule_id}/test-webhook (spec part 4: it
 * "verifies a webhook receiver"; its shape is designed here). The route makes
 * one real attempt at once, a `webhook.test` delivery signed, sent and logged
 * like any other, and reports how it ended in the delivery log's terms
 * (`outcome`, `error`, `status_code`), so a person fixing a receiver can read
 * one and find the other. A failed test follows the retry schedule too:
 * `next_attempt_at` says when the next attempt is due.
 */
import { Schema } from "effect"
import { AttemptOutcome } from "./Delivery.ts"
import { IsoDateTime, NonNegativeInt, Uuid } from "./Primitives.ts"

export const WebhookTestReport = Schema.Struct({
  delivery_id: Uuid.annotate({
    description: "The test delivery: also its webhook-id header and the delivery_id in its body"
  }),
  delivered: Schema.Boolean.annotate({ description: "Whether the receiver answered 2xx within 10 seconds" }),
  outcome: AttemptOutcome.annotate({
    description: "delivered, http_error, late_response (2xx after 10 s), timeout or network_error"
  }),
  status_code: Schema.NullOr(Schema.Int).annotate({
    description: "The HTTP status the receiver answered, or null when there was no response"
  }),
  elapsed_ms: NonNegativeInt.annotate({ description: "How long the attempt took" }),
  error: Schema.NullOr(Schema.String).annotate({
    description: "Why the attempt did not deliver (for example `HTTP 500` or `timeout`); null when delivered"
  }),
  attempted_at: IsoDateTime.annotate({ description: "When the attempt started" }),
  next_attempt_at: Schema.NullOr(IsoDateTime).annotate({
    description: "When the delivery will be retried, on the usual schedule; null when delivered"
  })
}).annotate({ description: "The outcome of one real, signed test delivery to the rule's webhook URL" })
export type WebhookTestReport = typeof WebhookTestReport.Type
