/**
 * The production `WebhookTransport`: one POST per delivery attempt over an
 * undici Agent (spec part 3 "Webhook delivery", part 6 "Delivery format").
 * `timeoutMs` covers the whole exchange, on real timers, not the Effect
 * clock. Redirects are never followed: a 3xx is a non-2xx answer, and
 * following one would let a receiver steer us to a target the policy
 * refuses. The target policy (the domain's `WebhookTargetPolicy`) is applied
 * on every attempt, to the addresses actually connected to, so DNS rebinding
 * is useless. `send` never fails: every error becomes a `NoResponse` with a
 * reason, whose message names codes, never headers, bodies or the addresses
 * a refused name resolves to.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns"
import type { Socket } from "node:net"
import {
  noResponse,
  responded,
  type TransportFailureReason,
  type TransportOutcome
} from "@ratings/domain/model/Delivery"
import {
  type SendDone,
  type TransportWarning,
  type WebhookRequest,
  WebhookTransport
} from "@ratings/domain/ports/WebhookTransport"
import { Effect, Layer, Result, type Scope } from "effect"
import { Agent, buildConnector } from "undici"
import { type UrlCheck, urlChecker } from "./UrlChecks.ts"
import {
  addressRefusal,
  checkUrl,
  parseIpLiteral,
  type TargetPolicy
} from "@ratings/domain/webhooks/WebhookTargetPolicy"

/** Resolves a host name to all of its addresses (the system resolver by default). */
export type ResolveHost = (hostname: string) => Promise<ReadonlyArray<LookupAddress>>

export interface UndiciTransportOptions extends TargetPolicy {
  /** Connections kept per receiver origin at most. Default 128. */
  readonly maxConnectionsPerOrigin?: number
  /** Bytes of a response body read before the connection is dropped. Default 64 KiB. */
  readonly maxResponseBytes?: number
  /** Replaces the system resolver (custom DNS, tests of resolved-address checks). */
  readonly resolveHost?: ResolveHost
}

export const defaultMaxConnectionsPerOrigin = 128
export const defaultMaxResponseBytes = 64 * 1024

const systemResolver: ResolveHost = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, order: "verbatim" }, (error, addresses) =>
      error ? reject(error) : resolve(addresses)
    )
  })

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

class TransportTimeout extends Error {
  readonly code = "ERR_WEBHOOK_TIMEOUT"
}

const dnsError = (hostname: string): NodeJS.ErrnoException =>
  Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND", hostname })

type Connector = buildConnector.connector
type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | Array<LookupAddress>,
  family?: number
) => void

/**
 * A connector that resolves, checks every resolved address and connects to
 * the checked ones only; literal addresses are checked before connecting, and
 * the connected peer is checked again before undici may write to it. One
 * refused address refuses the name. Resolving once and connecting to what was
 * checked is what makes DNS rebinding between check and connect useless.
 */
const makeConnector = (policy: TargetPolicy, resolveHost: ResolveHost): Connector => {
  // While private targets are refused, a name that does not resolve is refused like one that
  // resolves inward, so that the caller cannot tell which internal names exist.
  const unresolved = (hostname: string, error: NodeJS.ErrnoException): NodeJS.ErrnoException =>
    policy.allowPrivateTargets
      ? error
      : new TargetRefusedError(`${hostname}: did not resolve (${error?.code ?? error?.message})`)
  const lookup = (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolveHost(hostname).then(
      (resolved) => {
        for (const { address } of resolved) {
          const refusal = addressRefusal(address, policy)
          if (refusal !== undefined) return callback(new TargetRefusedError(`${hostname}: ${refusal}`), [])
        }
        const family = options.family === "IPv4" ? 4 : options.family === "IPv6" ? 6 : options.family
        const usable = family === 4 || family === 6 ? resolved.filter((a) => a.family === family) : resolved
        const first = usable[0]
        if (first === undefined) return callback(unresolved(hostname, dnsError(hostname)), [])
        if (options.all) return callback(null, [...usable])
        return callback(null, first.address, first.family)
      },
      (error: NodeJS.ErrnoException) => callback(unresolved(hostname, error), [])
    )
  }
  // undici's 10 s connect timeout stays: it frees a pool slot stuck on a
  // black-holed address even after the request that opened it gave up.
  const base = buildConnector({ allowH2: false, lookup })
  return (options, callback) => {
    if (parseIpLiteral(options.hostname) !== undefined) {
      const refusal = addressRefusal(options.hostname, policy)
      if (refusal !== undefined) return callback(new TargetRefusedError(refusal), null)
    }
    base(options, (error, socket) => {
      if (error !== null) return callback(error, null)
      const peer = (socket as Socket).remoteAddress
      const refusal = peer === undefined ? "refused target: no peer address" : addressRefusal(peer, policy)
      if (refusal !== undefined) {
        socket.destroy()
        return callback(new TargetRefusedError(refusal), null)
      }
      return callback(null, socket)
    })
  }
}

/**
 * An undici Agent enforcing the target policy, with bounded keep-alive pools
 * per origin: a burst to one receiver reuses sockets instead of opening
 * thousands. HTTP/1.1 only, keeping one request per connection and the
 * failure modes of plain sockets.
 */
export const makeAgent = (options: UndiciTransportOptions): Agent =>
  new Agent({
    connect: makeConnector(options, options.resolveHost ?? systemResolver),
    connections: options.maxConnectionsPerOrigin ?? defaultMaxConnectionsPerOrigin,
    pipelining: 1,
    allowH2: false,
    // The overall budget of each request bounds these; undici's 300 s defaults would only mask leaks.
    headersTimeout: 0,
    bodyTimeout: 0
  })

// --- outcome classification ----------------------------------------------------

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

// --- sending -------------------------------------------------------------------

/**
 * Reads at most `limit` bytes of a response body. A larger body is abandoned
 * (undici then closes its connection); an error mid-body propagates, since a
 * response that did not fully arrive is not an answer.
 */
const drain = async (body: AsyncIterable<Uint8Array> & { destroy: () => unknown }, limit: number) => {
  let read = 0
  for await (const chunk of body) {
    read += chunk.byteLength
    if (read > limit) {
      body.destroy()
      return
    }
  }
}

/** An attempt's outcome, and for a refused target what the operator's log says of it. */
interface Attempt {
  readonly outcome: TransportOutcome
  readonly refused?: string | undefined
}

/**
 * One POST under the policy and the budget; never rejects. The budget covers
 * connect, request, headers and the whole response body (a response not fully
 * arrived by then is `timeout`); it runs on real timers, since it bounds real
 * network time and a test clock must not stall it. At most `maxResponseBytes`
 * of the answer are read (its content is never used).
 */
export const post = async (
  agent: Agent,
  options: UndiciTransportOptions,
  request: WebhookRequest,
  interrupt?: AbortSignal
): Promise<TransportOutcome> => {
  const controller = new AbortController()
  const onInterrupt = () => controller.abort(interrupt?.reason)
  interrupt?.addEventListener("abort", onInterrupt, { once: true })
  try {
    return (await attempt(agent, options, (url) => checkUrl(url, options), request, controller)).outcome
  } finally {
    interrupt?.removeEventListener("abort", onInterrupt)
  }
}

/** One POST; `controller` aborts it (the budget's timer aborts it too). Never rejects. */
const attempt = async (
  agent: Agent,
  options: UndiciTransportOptions,
  check: UrlCheck,
  request: WebhookRequest,
  controller: AbortController
): Promise<Attempt> => {
  const started = performance.now()
  const elapsed = () => Math.max(0, Math.round(performance.now() - started))
  const checked = check(request.url)
  if (Result.isFailure(checked)) {
    const { reason, message } = checked.failure
    // A refused literal address is told like a resolved one: the caller reads the same words either way.
    return reason === "private_target"
      ? { outcome: noResponse("target_refused", elapsed(), TargetNotAllowedMessage), refused: message }
      : { outcome: noResponse("target_refused", elapsed(), message) }
  }
  const url = checked.success
  const timer = setTimeout(
    () => controller.abort(new TransportTimeout(`no complete response within ${request.timeoutMs} ms`)),
    request.timeoutMs
  )
  try {
    const response = await agent.request({
      origin: url.origin,
      path: url.pathname + url.search,
      method: "POST",
      headers: request.headers,
      body: request.body,
      signal: controller.signal
    })
    await drain(response.body, options.maxResponseBytes ?? defaultMaxResponseBytes)
    return { outcome: responded(response.statusCode, elapsed()) }
  } catch (error) {
    // After the budget, whatever undici reports (aborted, socket closed) is the timeout.
    const cause = controller.signal.aborted ? (controller.signal.reason ?? error) : error
    const { reason, message, detail } = classifyFailure(cause)
    return { outcome: noResponse(reason, elapsed(), message), refused: detail }
  } finally {
    clearTimeout(timer)
  }
}

/** Why an interrupted send was aborted. */
class SendInterrupted extends Error {
  readonly code = "ERR_WEBHOOK_INTERRUPTED"
}

/**
 * One send as an effect: a callback around the POST, aborted when the fiber
 * is interrupted. No span or call-site trace of its own: this runs for every
 * delivery, inside the dispatcher's attempt span.
 */
const sendOnce = (agent: Agent, options: UndiciTransportOptions, check: UrlCheck, request: WebhookRequest) =>
  Effect.callback<Attempt>((resume) => {
    const controller = new AbortController()
    attempt(agent, options, check, request, controller).then((a) => resume(Effect.succeed(a)))
    return Effect.sync(() => controller.abort(new SendInterrupted("the send was interrupted")))
  })

/** The operator's log line of a refused target: the detail, never shown to the caller. */
const refusedWarning = (request: WebhookRequest, detail: string): TransportWarning => ({
  message: "webhook target refused",
  annotations: { detail, webhook_id: request.headers["webhook-id"] ?? null }
})

/** The transport over an agent the caller owns. */
export const fromAgent = (agent: Agent, options: UndiciTransportOptions): WebhookTransport["Service"] => {
  const check = urlChecker(options)
  return WebhookTransport.of({
    send: (request: WebhookRequest) =>
      Effect.flatMap(sendOnce(agent, options, check, request), ({ outcome, refused }) => {
        if (refused === undefined) return Effect.succeed(outcome)
        const { message, annotations } = refusedWarning(request, refused)
        return Effect.as(Effect.logWarning(message).pipe(Effect.annotateLogs(annotations)), outcome)
      }),
    // The dispatcher's loop: the same POST, its outcome handed to a callback, no fiber of its own.
    start: (request: WebhookRequest, done: SendDone) => {
      const controller = new AbortController()
      attempt(agent, options, check, request, controller).then(({ outcome, refused }) =>
        done(outcome, refused === undefined ? undefined : refusedWarning(request, refused))
      )
      return () => controller.abort(new SendInterrupted("the send was interrupted"))
    }
  })
}

/** The transport with its own agent, destroyed (open sockets closed) when the scope closes. */
export const make = (
  options: UndiciTransportOptions
): Effect.Effect<WebhookTransport["Service"], never, Scope.Scope> =>
  Effect.map(
    Effect.acquireRelease(
      Effect.sync(() => makeAgent(options)),
      (agent) => Effect.promise(() => agent.destroy())
    ),
    (agent) => fromAgent(agent, options)
  )

export const layer = (options: UndiciTransportOptions): Layer.Layer<WebhookTransport> =>
  Layer.effect(WebhookTransport, make(options))
