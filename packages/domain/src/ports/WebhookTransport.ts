/**
 * Port: one HTTP POST of a webhook body to a receiver, reporting what came
 * back (a status and the elapsed time, or why there was no response). A
 * transport never fails in the error channel: every way a POST can go wrong
 * is an outcome the delivery state machine classifies. It is expected to stop
 * waiting at `timeoutMs` and report `NoResponse` "timeout". Production: the
 * undici transport in adapters-webhook. `WebhookTransportMemory.layer`
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

export class WebhookTransport extends Context.Service<
  WebhookTransport,
  {
    readonly send: (request: WebhookRequest) => Effect.Effect<TransportOutcome>
  }
>()("@ratings/domain/ports/WebhookTransport") {}
