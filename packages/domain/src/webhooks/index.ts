/**
 * Webhooks: the retry schedule, the delivery state machine, the event
 * payload builders and their serialisation, the signing of deliveries, the
 * plain-TypeScript HMAC-SHA256 behind the in-memory signer, and the policy of
 * which webhook targets may be called.
 */
export * from "./DeliveryStateMachine.ts"
export * from "./EventPayloads.ts"
export * from "./RetrySchedule.ts"
export * from "./Sha256.ts"
export * from "./WebhookSignature.ts"
export * from "./WebhookTargetPolicy.ts"
