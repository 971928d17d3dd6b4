/**
 * Port: one HTTP POST of a webhook body to a receiver, reporting what came
 * back (a status and the elapsed time, or why there was no response). A
 * transport never fails in the error channel: every way a POST can go wrong
 * is an outcome the delivery state machine classifies. It is expected to stop
 * waiting at `timeoutMs` and report `NoResponse` "timeout". `start` is the
 * same POST with a callback, no effect around it: the dispatcher's loop drives
 * thousands at once from one fiber (without it, through `send`). Production:
 * the undici transport in adapters-webhook. `WebhookTransportMemory.layer`
 * (memory/WebhookTransportMemory.ts) records every request and answers from
 * a script (`WebhookTransportScript`), then 200 once the script runs out.
 */
import { Context, type Effect } from "effect"
import type { TransportOutcome } from "../model/Delivery.ts"

export interface WebhookRequest {
  readonly url: string
  readonly headers: { readonly [name: string]: string }
  readonly body: string
  readonly timeoutMs: number
}

/** What the operator's log should say of a send (never a URL, header, body or key). */
export interface TransportWarning {
  readonly message: string
  readonly annotations: { readonly [key: string]: string | number | null }
}

/**
 * Reports the outcome of a started send, exactly once (also after an abort:
 * then as the transport saw it cut), with a warning for the operator's log.
 */
export type SendDone = (outcome: TransportOutcome, warning?: TransportWarning) => void

/** Aborts a started send; its outcome is still reported. Calling it after the outcome does nothing. */
export type AbortSend = () => void

export class WebhookTransport extends Context.Service<
  WebhookTransport,
  {
    readonly send: (request: WebhookRequest) => Effect.Effect<TransportOutcome>
    /** Starts the POST at once and reports its outcome to `done`; the same contract as `send`. */
    readonly start?: ((request: WebhookRequest, done: SendDone) => AbortSend) | undefined
  }
>()("@ratings/domain/ports/WebhookTransport") {}
