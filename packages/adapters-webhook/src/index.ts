/**
 * Outbound signed webhooks: the node:crypto signer, the target policy that
 * refuses private and link-local receivers, and the undici transport (the
 * dispatcher loop joins them), counted by outcome when metrics are on.
 */
export * as CountedTransport from "./CountedTransport.ts"
export * as HmacSigner from "./HmacSigner.ts"
export * as TargetPolicy from "./TargetPolicy.ts"
export * as UndiciTransport from "./UndiciTransport.ts"
