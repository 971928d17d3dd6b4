/**
 * The production `WebhookTransport`: one POST per delivery attempt over an
 * undici Agent (spec part 3 "Webhook delivery", part 6 "Delivery format").
 * `timeoutMs` covers the whole exchange, on real timers, not the Effect
 * clock. Redirects are never followed: a 3xx is a non-2xx answer, and
 * following one would let a receiver steer us to a target the policy
 * refuses. The target policy (the domain's `WebhookTargetPolicy`) is applied
 * on every attempt, to the addresses actually connected to, so DNS rebinding
 * is useless. `send` never fails: every error becomes a `NoResponse` with a
 * reason (TransportFailures.ts); the POST itself is UndiciPost.ts.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns"
import type { Socket } from "node:net"
import type { TransportOutcome } from "@ratings/domain/model/Delivery"
import {
  type SendDone,
  type TransportWarning,
  type WebhookRequest,
  WebhookTransport
} from "@ratings/domain/ports/WebhookTransport"
import { Effect, Layer, type Scope } from "effect"
import { Agent, buildConnector } from "undici"
import { TargetRefusedError } from "./TransportFailures.ts"
import { makePosts } from "./UndiciPost.ts"
import { urlChecker } from "./UrlChecks.ts"
import {
  addressRefusal,
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

export {
  classifyFailure,
  TargetNotAllowedMessage,
  TargetRefusedError
} from "./TransportFailures.ts"

const systemResolver: ResolveHost = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, order: "verbatim" }, (error, addresses) =>
      error ? reject(error) : resolve(addresses)
    )
  })

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

// --- sending -------------------------------------------------------------------

/** Why an interrupted send was aborted. */
class SendInterrupted extends Error {
  readonly code = "ERR_WEBHOOK_INTERRUPTED"
}

/** The operator's log line of a refused target: the detail, never shown to the caller. */
const refusedWarning = (request: WebhookRequest, detail: string): TransportWarning => ({
  message: "webhook target refused",
  annotations: { detail, webhook_id: request.headers["webhook-id"] ?? null }
})

/** The transport over an agent the caller owns. */
export const fromAgent = (agent: Agent, options: UndiciTransportOptions): WebhookTransport["Service"] => {
  const post = makePosts(agent, options.maxResponseBytes ?? defaultMaxResponseBytes, urlChecker(options))
  // One send as an effect: a callback around the POST, aborted when the fiber is interrupted.
  const sendOnce = (request: WebhookRequest) =>
    Effect.callback<{ readonly outcome: TransportOutcome; readonly refused: string | undefined }>(
      (resume) => {
        const started = post(request, (outcome, refused) => resume(Effect.succeed({ outcome, refused })))
        return Effect.sync(() => started.abort(new SendInterrupted("the send was interrupted")))
      }
    )
  return WebhookTransport.of({
    send: (request: WebhookRequest) =>
      Effect.flatMap(sendOnce(request), ({ outcome, refused }) => {
        if (refused === undefined) return Effect.succeed(outcome)
        const { message, annotations } = refusedWarning(request, refused)
        return Effect.as(Effect.logWarning(message).pipe(Effect.annotateLogs(annotations)), outcome)
      }),
    // The dispatcher's loop: the same POST, its outcome handed to a callback, no fiber of its own.
    start: (request: WebhookRequest, done: SendDone) => {
      const started = post(request, (outcome, refused) =>
        done(outcome, refused === undefined ? undefined : refusedWarning(request, refused))
      )
      return () => started.abort(new SendInterrupted("the send was interrupted"))
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
