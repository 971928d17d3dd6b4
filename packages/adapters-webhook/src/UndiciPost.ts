/**
 * One webhook POST on undici's dispatch API: the POST is itself the handler
 * whose callbacks read the status and count the body's bytes, with no
 * response stream, async iterator, promise or closure per request (those
 * cost more CPU than the request's own bytes). `timeoutMs` covers connect,
 * request, headers and the whole body, on real timers: one timer per
 * transport for all its POSTs in flight (PostDeadlines.ts). At most
 * `maxResponseBytes` of the answer are read (its content is never used). The
 * outcome is reported exactly once, and never as a failure: every error
 * becomes a `NoResponse` with a reason.
 */
import { noResponse, responded, type TransportOutcome } from "@ratings/domain/model/Delivery"
import type { WebhookRequest } from "@ratings/domain/ports/WebhookTransport"
import { Result } from "effect"
import type { Agent, Dispatcher } from "undici"
import { type Deadline, PostDeadlines } from "./PostDeadlines.ts"
import { classifyFailure, TargetNotAllowedMessage, TransportTimeout } from "./TransportFailures.ts"
import type { UrlCheck } from "./UrlChecks.ts"

/** Reports an attempt's outcome, and for a refused target what the operator's log says of it. */
export type ReportPost = (outcome: TransportOutcome, refused: string | undefined) => void

/** A started POST: aborting it reports it at once as `reason` classifies (a timeout, an interruption). */
export interface StartedPost {
  readonly abort: (reason: Error) => void
}

/** A response body larger than the transport reads: it is abandoned, and the connection with it. */
class BodyAbandoned extends Error {
  readonly code = "ERR_WEBHOOK_BODY_ABANDONED"
}

const refusedPost: StartedPost = { abort: () => {} }

/** A POST in flight: undici's handler of its response, and its place among the deadlines. */
class Post implements Dispatcher.DispatchHandler, Deadline, StartedPost {
  readonly started = performance.now()
  readonly deadline: number
  private over = false
  private controller: Dispatcher.DispatchController | undefined = undefined
  private aborted: Error | undefined = undefined
  private status = 0
  private read = 0

  private readonly deadlines: PostDeadlines
  private readonly maxResponseBytes: number
  readonly timeoutMs: number
  private readonly report: ReportPost

  constructor(deadlines: PostDeadlines, maxResponseBytes: number, timeoutMs: number, report: ReportPost) {
    this.deadlines = deadlines
    this.maxResponseBytes = maxResponseBytes
    this.timeoutMs = timeoutMs
    this.report = report
    this.deadline = this.started + timeoutMs
  }

  private elapsed(): number {
    return Math.max(0, Math.round(performance.now() - this.started))
  }

  private finish(outcome: TransportOutcome, refused?: string): void {
    if (this.over) return
    this.over = true
    this.deadlines.remove(this)
    this.report(outcome, refused)
  }

  // After an abort (the budget, an interruption), whatever undici reports is that abort.
  fail(error: unknown): void {
    const { reason, message, detail } = classifyFailure(this.aborted ?? error)
    this.finish(noResponse(reason, this.elapsed(), message), detail)
  }

  abort(reason: Error): void {
    if (this.over || this.aborted !== undefined) return
    this.aborted = reason
    this.fail(reason)
    this.controller?.abort(reason)
  }

  /** The budget ran out (PostDeadlines). */
  expire(): void {
    this.abort(new TransportTimeout(`no complete response within ${this.timeoutMs} ms`))
  }

  onRequestStart(c: Dispatcher.DispatchController): void {
    this.controller = c
    if (this.aborted !== undefined) c.abort(this.aborted)
  }

  onResponseStart(_c: Dispatcher.DispatchController, statusCode: number): void {
    // 1xx answers are interim: the status that counts comes after them.
    if (statusCode >= 200) this.status = statusCode
  }

  onResponseData(c: Dispatcher.DispatchController, chunk: Buffer): void {
    this.read += chunk.byteLength
    if (this.read <= this.maxResponseBytes) return
    this.finish(responded(this.status, this.elapsed()))
    c.abort(new BodyAbandoned(`response body over ${this.maxResponseBytes} bytes`))
  }

  onResponseEnd(): void {
    this.finish(responded(this.status, this.elapsed()))
  }

  onResponseError(_c: Dispatcher.DispatchController, error: Error): void {
    this.fail(error)
  }
}

const refusedOutcome = (reason: string, message: string, report: ReportPost) =>
  // A refused literal address is told like a resolved one: the caller reads the same words either way.
  reason === "private_target"
    ? report(noResponse("target_refused", 0, TargetNotAllowedMessage), message)
    : report(noResponse("target_refused", 0, message), undefined)

/**
 * The POSTs of one transport over `agent`: `post` starts one under the URL
 * check and the budget, and `report` gets its outcome once. A response body
 * that fails mid-way is no answer; one larger than `maxResponseBytes` is
 * abandoned and the status stands.
 */
export const makePosts = (agent: Agent, maxResponseBytes: number, check: UrlCheck) => {
  const deadlines = new PostDeadlines()
  return (request: WebhookRequest, report: ReportPost): StartedPost => {
    const checked = check(request.url)
    if (Result.isFailure(checked)) {
      refusedOutcome(checked.failure.reason, checked.failure.message, report)
      return refusedPost
    }
    const post = new Post(deadlines, maxResponseBytes, request.timeoutMs, report)
    deadlines.add(post)
    try {
      agent.dispatch(
        {
          origin: checked.success.origin,
          path: checked.success.path,
          method: "POST",
          headers: request.headers,
          body: request.body
        },
        post
      )
    } catch (error) {
      post.fail(error)
    }
    return post
  }
}
