/**
 * Webhooks: the retry schedule, the delivery state machine, the event
 * payload builders and their serialisation, the signing rules of deliveries
 * (header formats, constant-time compare; the hashing is the Signer
 * adapter's), and the policy of which webhook targets may be called.
 */
export * from "./DeliveryStateMachine.ts"
export * from "./EndpointHealth.ts"
export * from "./EventPayloads.ts"
export * from "./RetrySchedule.ts"
export * from "./WebhookSignature.ts"
export * from "./WebhookTargetPolicy.ts"
