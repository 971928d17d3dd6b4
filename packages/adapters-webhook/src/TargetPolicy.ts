/**
 * The webhook target policy, which now lives in the domain
 * (`@ratings/domain/webhooks/WebhookTargetPolicy`) so that the alert-rule use
 * case validates URLs at create time with the same rules this package's
 * transport applies at send time. Re-exported here for the package index and
 * existing importers.
 */
export * from "@ratings/domain/webhooks/WebhookTargetPolicy"
