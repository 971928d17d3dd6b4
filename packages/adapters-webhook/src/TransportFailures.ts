/**
 * Why a webhook POST got no response, as the transport tells it: the errors
 * it raises itself (a refused target, its own timeout) and `classifyFailure`,
 * which turns whatever undici or Node threw into a `NoResponse` reason with a
 * message naming codes, never headers, bodies or the addresses a refused
 * name resolves to.
 */
import type { TransportFailureReason } from "@ratings/domain/model/Delivery"

/**
 * What a caller reads of a target refused at send time: an address the
 * policy refuses, or (while private targets are refused) a name that does
 * not resolve. Never the address, nor which of the two it was: the caller who
 * chose the URL reads it (test-webhook, delivery logs), and an address or a
 * `dns: ENOTFOUND` would tell them what internal names exist or resolve to.
 * Both end at the lookup, so they are as fast too. The operator's log (a
 * warning) has the name and the address or the resolver's error instead.
 */
export const TargetNotAllowedMessage = "the target could not be resolved to an allowed address"

/**
 * Raised inside the connector when the policy refuses an address, or a name
 * does not resolve while private targets are refused; becomes
 * `target_refused` with TargetNotAllowedMessage. `detail` (the name and the
 * address refused, or the resolver's error) is for the operator's log only.
 */
export class TargetRefusedError extends Error {
  readonly code = "ERR_WEBHOOK_TARGET_REFUSED"
  readonly detail: string
  constructor(detail: string) {
    super(TargetNotAllowedMessage)
    this.detail = detail
  }
}

/** The budget of a POST ran out. */
export class TransportTimeout extends Error {
  readonly code = "ERR_WEBHOOK_TIMEOUT"
}

const tlsCodes = new Set([
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "CERT_REVOKED",
  "CERT_UNTRUSTED",
  "CERT_REJECTED",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "HOSTNAME_MISMATCH"
])
const dnsCodes = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_FAIL", "EAI_NONAME", "EAI_NODATA", "ENODATA"])
const resetCodes = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "ECONNABORTED"])
const timeoutCodes = new Set([
  "ETIMEDOUT",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT"
])

interface ErrorLike {
  readonly code?: unknown
  readonly message?: unknown
  readonly cause?: unknown
  readonly errors?: unknown
}

/** Every error in a chain of causes and aggregates, outermost first. */
const errorChain = (error: unknown): ReadonlyArray<ErrorLike> => {
  const seen: Array<ErrorLike> = []
  const visit = (e: unknown) => {
    if (typeof e !== "object" || e === null || seen.includes(e) || seen.length > 20) return
    const err = e as ErrorLike
    seen.push(err)
    if (Array.isArray(err.errors)) for (const inner of err.errors) visit(inner)
    visit(err.cause)
  }
  visit(error)
  return seen
}

const codeOf = (e: ErrorLike): string => (typeof e.code === "string" ? e.code : "")
const messageOf = (e: ErrorLike | undefined): string =>
  e !== undefined && typeof e.message === "string" && e.message !== "" ? e.message : "unknown error"

/**
 * Why a POST produced no response, from what undici or Node threw; for a
 * refused target, the operator's `detail` beside the caller's message.
 */
export const classifyFailure = (
  error: unknown
): { readonly reason: TransportFailureReason; readonly message: string; readonly detail?: string } => {
  const chain = errorChain(error)
  const find = (test: (e: ErrorLike) => boolean) => chain.find(test)
  const withCode = (codes: ReadonlySet<string>) => find((e) => codes.has(codeOf(e)))
  const refused = chain.find((e): e is TargetRefusedError => e instanceof TargetRefusedError)
  if (refused) return { reason: "target_refused", message: TargetNotAllowedMessage, detail: refused.detail }
  const timedOut = find((e) => e instanceof TransportTimeout) ?? withCode(timeoutCodes)
  if (timedOut) return { reason: "timeout", message: messageOf(timedOut) }
  const tls = find((e) => {
    const code = codeOf(e)
    return tlsCodes.has(code) || code.startsWith("ERR_TLS_") || code.startsWith("ERR_SSL_")
  })
  if (tls) return { reason: "tls", message: `${codeOf(tls)}: ${messageOf(tls)}` }
  const dns = withCode(dnsCodes)
  if (dns) return { reason: "dns", message: `${codeOf(dns)}: ${messageOf(dns)}` }
  const connRefused = withCode(new Set(["ECONNREFUSED"]))
  if (connRefused) return { reason: "connection_refused", message: messageOf(connRefused) }
  const reset = withCode(resetCodes)
  if (reset) return { reason: "connection_reset", message: `${codeOf(reset)}: ${messageOf(reset)}` }
  const first = chain[0]
  const code = first === undefined ? "" : codeOf(first)
  return { reason: "other", message: code === "" ? messageOf(first) : `${code}: ${messageOf(first)}` }
}
