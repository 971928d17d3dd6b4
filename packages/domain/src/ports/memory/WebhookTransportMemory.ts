/** The in-memory `WebhookTransport` of tests and tools; the contract is the port's (`../WebhookTransport.ts`). */
import { Context, Effect, Layer, Ref } from "effect"
import { responded, type TransportOutcome } from "../../model/Delivery.ts"
import { type WebhookRequest, WebhookTransport } from "../WebhookTransport.ts"

/** The test handle of `WebhookTransportMemory.layer`: queue answers, read what was sent. */
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

const layer: Layer.Layer<WebhookTransport | WebhookTransportScript> = Layer.effect(
  WebhookTransport,
  Effect.gen(function* () {
    const script = yield* WebhookTransportScript
    return WebhookTransport.of({
      send: (request) => script.answer(request)
    })
  })
).pipe(Layer.provideMerge(Layer.effect(WebhookTransportScript, makeScript)))

export const WebhookTransportMemory = { layer }
