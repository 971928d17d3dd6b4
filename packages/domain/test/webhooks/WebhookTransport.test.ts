import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { noResponse, responded } from "../../src/model/Delivery.ts"
import { WebhookTransport } from "../../src/ports/WebhookTransport.ts"
import {
  WebhookTransportMemory,
  WebhookTransportScript
} from "../../src/ports/memory/WebhookTransportMemory.ts"

const request = (n: number) => ({
  url: "https://hooks.example.com/x",
  headers: { "content-type": "application/json" },
  body: `{"n":${n}}`,
  timeoutMs: 10_000
})

describe("WebhookTransportMemory.layer", () => {
  it.effect("records requests and answers from the script, then 200", () =>
    Effect.gen(function* () {
      const transport = yield* WebhookTransport
      const script = yield* WebhookTransportScript
      yield* script.push(responded(500, 20), noResponse("timeout", 10_000))
      assert.deepStrictEqual(yield* transport.send(request(1)), responded(500, 20))
      assert.deepStrictEqual(yield* transport.send(request(2)), noResponse("timeout", 10_000))
      assert.deepStrictEqual(yield* transport.send(request(3)), responded(200, 0))
      assert.deepStrictEqual(
        (yield* script.requests).map((r) => r.body),
        ['{"n":1}', '{"n":2}', '{"n":3}']
      )
    }).pipe(Effect.provide(WebhookTransportMemory.layer))
  )
})
