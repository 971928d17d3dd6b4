/**
 * One webhook POST on undici's dispatch API: the handler's callbacks read the
 * status and count the body's bytes, with no response stream, async iterator
 * or promise per request (those cost more CPU than the request's own bytes).
 * `timeoutMs` covers connect, request, headers and the whole body, on real
 * timers; at most `maxResponseBytes` of the answer are read (its content is
 * never used). The outcome is reported exactly once, and never as a failure:
 * every error becomes a `NoResponse` with a reason.
 */
import { noResponse, responded, type TransportOutcome } from "@ratings/domain/model/Delivery"
import type { WebhookRequest } from "@ratings/domain/ports/WebhookTransport"
import { Result } from "effect"
import type { Agent, Dispatcher } from "undici"
import { classifyFailure, TargetNotAllowedMessage, TransportTimeout } from "./TransportFailures.ts"
import type { UrlCheck } from "./UrlChecks.ts"

/** An attempt's outcome, and for a refused target what the operator's log says of it. */
export interface Attempt {
  readonly outcome: TransportOutcome
  readonly refused?: string | undefined
}

/** Aborts a POST: it is reported at once as `reason` classifies (a timeout, an interruption). */
export type AbortPost = (reason: Error) => void

/** A response body larger than the transport reads: it is abandoned, and the connection with it. */
class BodyAbandoned extends Error {
  readonly code = "ERR_WEBHOOK_BODY_ABANDONED"
}

const refusedAttempt = (reason: string, message: string, elapsedMs: number): Attempt =>
  // A refused literal address is told like a resolved one: the caller reads the same words either way.
  reason === "private_target"
    ? { outcome: noResponse("target_refused", elapsedMs, TargetNotAllowedMessage), refused: message }
    : { outcome: noResponse("target_refused", elapsedMs, message) }

/**
 * One POST under the URL check and the budget; `report` gets its outcome
 * once. A response body that fails mid-way is no answer; one larger than
 * `maxResponseBytes` is abandoned and the status stands.
 */
export const dispatchPost = (
  agent: Agent,
  maxResponseBytes: number,
  check: UrlCheck,
  request: WebhookRequest,
  report: (attempt: Attempt) => void
): AbortPost => {
  const started = performance.now()
  const elapsed = () => Math.max(0, Math.round(performance.now() - started))
  const checked = check(request.url)
  if (Result.isFailure(checked)) {
    report(refusedAttempt(checked.failure.reason, checked.failure.message, elapsed()))
    return () => {}
  }
  const url = checked.success
  let over = false
  let controller: Dispatcher.DispatchController | undefined
  let aborted: Error | undefined
  let status = 0
  let read = 0
  const finish = (attempt: Attempt) => {
    if (over) return
    over = true
    clearTimeout(timer)
    report(attempt)
  }
  // After an abort (the budget, an interruption), whatever undici reports is that abort.
  const fail = (error: unknown) => {
    const { reason, message, detail } = classifyFailure(aborted ?? error)
    finish({ outcome: noResponse(reason, elapsed(), message), refused: detail })
  }
  const abort: AbortPost = (reason) => {
    if (over || aborted !== undefined) return
    aborted = reason
    fail(reason)
    controller?.abort(reason)
  }
  const timer = setTimeout(
    () => abort(new TransportTimeout(`no complete response within ${request.timeoutMs} ms`)),
    request.timeoutMs
  )
  const handler: Dispatcher.DispatchHandler = {
    onRequestStart: (c) => {
      controller = c
      if (aborted !== undefined) c.abort(aborted)
    },
    onResponseStart: (_c, statusCode) => {
      // 1xx answers are interim: the status that counts comes after them.
      if (statusCode >= 200) status = statusCode
    },
    onResponseData: (c, chunk) => {
      read += chunk.byteLength
      if (read <= maxResponseBytes) return
      finish({ outcome: responded(status, elapsed()) })
      c.abort(new BodyAbandoned(`response body over ${maxResponseBytes} bytes`))
    },
    onResponseEnd: () => finish({ outcome: responded(status, elapsed()) }),
    onResponseError: (_c, error) => fail(error)
  }
  try {
    agent.dispatch(
      {
        origin: url.origin,
        path: url.pathname + url.search,
        method: "POST",
        headers: request.headers,
        body: request.body
      },
      handler
    )
  } catch (error) {
    fail(error)
  }
  return abort
}
