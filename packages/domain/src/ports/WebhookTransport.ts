/**
 * Port: one HTTP POST of a webhook body to a receiver, reporting what came
 * back (a status and the elapsed time, or why there was no response).
 *
 * A transport never fails in the error channel: every way a POST can go
 * wrong is an outcome the delivery state machine classifies. It is expected
 * to stop waiting at `timeoutMs` and report `NoResponse` "timeout".
 *
 * Production: the undici transport in adapters-webhook. `layerMemory`
 * records every request and answers from a script (`WebhookTransportScript`),
 * then with 200 in 0 ms once the script runs out.
 */
import { Context, Effect, Layer, Ref } from "effect"
import { responded, type TransportOutcome } from "../model/Delivery.ts"

export interface WebhookRequest {
  readonly url: string
  readonly headers: { readonly [name: string]: string }
  readonly body: string
  readonly timeoutMs: number
}

/** The test handle of `WebhookTransport.layerMemory`: queue answers, read what was sent. */
export class WebhookTransportScript extends Context.Service<
  WebhookTransportScript,
  {
    /** Appends answers, consumed one per request in order. */
    readonly push: (...outcomes: ReadonlyArray<TransportOutcome>) => Effect.Effect<void>
    /** Every request sent so far, oldest first. */
    readonly requests: Effect.Effect<ReadonlyArray<WebhookRequest>>
    readonly answer: (request: WebhookRequest) => Effect.Effect<TransportOutcome>
  }
>()("@ratings/domain/ports/WebhookTransportScript") {}

const makeScript = Effect.gen(function* () {
  const state = yield* Ref.make<{
    readonly queued: ReadonlyArray<TransportOutcome>
    readonly sent: ReadonlyArray<WebhookRequest>
  }>({ queued: [], sent: [] })
  return WebhookTransportScript.of({
    push: (...outcomes) => Ref.update(state, (s) => ({ ...s, queued: [...s.queued, ...outcomes] })),
    requests: Effect.map(Ref.get(state), (s) => s.sent),
    answer: (request) =>
      Ref.modify(state, (s) => {
        const [next, ...rest] = s.queued
        return [next ?? responded(200, 0), { queued: rest, sent: [...s.sent, request] }] as const
      })
  })
})

export class WebhookTransport extends Context.Service<
  WebhookTransport,
  {
    readonly send: (request: WebhookRequest) => Effect.Effect<TransportOutcome>
  }
>()("@ratings/domain/ports/WebhookTransport") {
  static readonly layerMemory: Layer.Layer<WebhookTransport | WebhookTransportScript> = Layer.effect(
    WebhookTransport,
    Effect.gen(function* () {
      const script = yield* WebhookTransportScript
      return WebhookTransport.of({
        send: (request) => script.answer(request)
      })
    })
  ).pipe(Layer.provideMerge(Layer.effect(WebhookTransportScript, makeScript)))
}
