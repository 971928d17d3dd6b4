/**
 * The shapes of operating a rule's webhook: enabling a disabled endpoint
 * (optionally re-firing what was held meanwhile), rotating its signing key
 * with an overlap during which deliveries carry both signatures, and bulk
 * re-fire of failed deliveries since a time, bounded per call. The bounds
 * are here, so that the API, the CLI and their documentation quote one value.
 */
import { Schema } from "effect"
import { AlertRule } from "./AlertRule.ts"
import { IsoDateTime, NonNegativeInt, Uuid } from "./Primitives.ts"

/** Most deliveries one bulk re-fire (or an enable's re-fire) takes; the answer says whether more remain. */
export const RefireBatchLimit = 500

/** A rotation's overlap: the replaced key keeps signing this long by default, and at most 7 days. */
export const RotationOverlap = {
  defaultSeconds: 24 * 3_600,
  maxSeconds: 7 * 24 * 3_600
} as const

export const RefireReport = Schema.Struct({
  refired: NonNegativeInt.annotate({ description: "How many failed deliveries this call re-fired" }),
  more: Schema.Boolean.annotate({
    description: `Whether more failed deliveries remain to re-fire (at most ${RefireBatchLimit} per call): call again`
  }),
  delivery_ids: Schema.Array(Uuid).annotate({
    description: "The re-fired deliveries, oldest first; each keeps its delivery_id"
  })
}).annotate({ identifier: "RefireReport", description: "What a bulk re-fire did" })
export type RefireReport = typeof RefireReport.Type

export const RuleEnabled = Schema.Struct({
  rule: AlertRule,
  was_disabled_at: Schema.NullOr(IsoDateTime).annotate({
    description: "When the endpoint had been disabled (null when it was not disabled)"
  }),
  was_disabled_reason: Schema.NullOr(Schema.String).annotate({ description: "Why it had been disabled" }),
  refire: Schema.NullOr(RefireReport).annotate({
    description:
      "When asked for: the re-fire of the deliveries that failed since the endpoint began failing " +
      "(what failed or was held while it was down); else null"
  })
}).annotate({ identifier: "RuleEnabled", description: "The rule enabled again" })
export type RuleEnabled = typeof RuleEnabled.Type

export const RotateSecretRequest = Schema.Struct({
  overlap_seconds: Schema.optionalKey(
    Schema.Int.annotate({
      description:
        `How long the replaced key keeps signing beside the new one, 0 to ${RotationOverlap.maxSeconds} ` +
        `seconds (7 days); default ${RotationOverlap.defaultSeconds} (24 h). 0 destroys it at once.`
    }).check(Schema.isBetween({ minimum: 0, maximum: RotationOverlap.maxSeconds }))
  )
}).annotate({ identifier: "RotateSecretRequest" })
export type RotateSecretRequest = typeof RotateSecretRequest.Type

export const SecretRotated = Schema.Struct({
  ...AlertRule.fields,
  webhook_signing_key: Schema.String.annotate({
    description:
      "The new signing key (whsec_...). Shown once: store it. X-Service-Signature uses it from now on."
  }),
  previous_key_expires_at: Schema.NullOr(IsoDateTime).annotate({
    description:
      "Until when the replaced key still signs: webhook-signature carries a v1 entry for each key until " +
      "then; null when it was destroyed at once"
  })
}).annotate({
  identifier: "SecretRotated",
  description: "The rule with its new signing key, shown this once"
})
export type SecretRotated = typeof SecretRotated.Type
