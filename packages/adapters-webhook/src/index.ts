/**
 * Outbound signed webhooks: the node:crypto signer (more adapters join it:
 * the undici transport and the dispatcher loop).
 */
export * as HmacSigner from "./HmacSigner.ts"
