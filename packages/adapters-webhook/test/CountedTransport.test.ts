/**
 * The counted transport (metrics on): every send is counted once under its
 * outcome (a 2xx delivered, any other status http_error, no response its
 * reason), and the wrapped transport's outcome is returned unchanged.
 */
import { assert, describe, it } from "@effect/vitest"
import { noResponse, responded, type TransportOutcome } from "@ratings/domain/model/Delivery"
import { WebhookTransport } from "@ratings/domain/ports/WebhookTransport"
import { Effect, Layer, Metric } from "effect"
import * as CountedTransport from "../src/CountedTransport.ts"

const scripted = (outcomes: ReadonlyArray<TransportOutcome>) => {
  let next = 0
  return Layer.succeed(
    WebhookTransport,
    WebhookTransport.of({ send: () => Effect.sync(() => outcomes[next++ % outcomes.length]!) })
  )
}

const count = (outcome: string) =>
  Effect.map(
    Metric.value(Metric.withAttributes(CountedTransport.WebhookAttempts, { outcome })),
    (state) => state.count
  )

const outcomes = [responded(200, 1), responded(503, 2), noResponse("timeout", 3), responded(201, 4)]

const request = { url: "https://receiver.example/hook", headers: {}, body: "{}", timeoutMs: 1_000 }

describe("counted webhook transport", () => {
  it("labels a 2xx delivered, any other status http_error, and no response by its reason", () => {
    assert.strictEqual(CountedTransport.outcomeOf(responded(204, 3)), "delivered")
    assert.strictEqual(CountedTransport.outcomeOf(responded(302, 3)), "http_error")
    assert.strictEqual(CountedTransport.outcomeOf(responded(500, 3)), "http_error")
    assert.strictEqual(CountedTransport.outcomeOf(noResponse("timeout", 10_000)), "timeout")
  })

  it.effect("counts each send once under its outcome and returns the wrapped transport's outcome", () =>
    Effect.gen(function* () {
      const before = {
        delivered: yield* count("delivered"),
        http_error: yield* count("http_error"),
        timeout: yield* count("timeout")
      }
      const transport = yield* WebhookTransport
      const seen: Array<TransportOutcome> = []
      for (let i = 0; i < outcomes.length; i++) seen.push(yield* transport.send(request))
      assert.deepStrictEqual(seen, outcomes)
      assert.strictEqual((yield* count("delivered")) - before.delivered, 2)
      assert.strictEqual((yield* count("http_error")) - before.http_error, 1)
      assert.strictEqual((yield* count("timeout")) - before.timeout, 1)
    }).pipe(Effect.provide(CountedTransport.layer.pipe(Layer.provide(scripted(outcomes)))))
  )

  it.effect("counts each started send once under its outcome and hands the outcome on unchanged", () => {
    let next = 0
    const inner = Layer.succeed(
      WebhookTransport,
      WebhookTransport.of({
        send: () => Effect.die(new Error("not used")),
        start: (_request, done) => {
          done(outcomes[next++ % outcomes.length]!)
          return () => {}
        }
      })
    )
    return Effect.gen(function* () {
      const before = { delivered: yield* count("delivered"), timeout: yield* count("timeout") }
      const transport = yield* WebhookTransport
      const seen: Array<TransportOutcome> = []
      for (let i = 0; i < outcomes.length; i++) transport.start!(request, (outcome) => seen.push(outcome))
      assert.deepStrictEqual(seen, outcomes)
      assert.strictEqual((yield* count("delivered")) - before.delivered, 2)
      assert.strictEqual((yield* count("timeout")) - before.timeout, 1)
    }).pipe(Effect.provide(CountedTransport.layer.pipe(Layer.provide(inner))))
  })

  it.effect("a wrapped transport without start has none: the dispatcher then drives send", () =>
    Effect.gen(function* () {
      assert.isUndefined((yield* WebhookTransport).start)
    }).pipe(Effect.provide(CountedTransport.layer.pipe(Layer.provide(scripted(outcomes)))))
  )
})
