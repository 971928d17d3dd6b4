/**
 * The undici transport's `start`, the callback form the dispatcher's loop
 * drives: the same POST as `send`, its outcome handed to the callback once;
 * an abort cuts the POST short; a refused target carries the operator's
 * warning (with the detail) beside the caller's outcome.
 */
import { assert, describe, it } from "@effect/vitest"
import type { TransportOutcome } from "@ratings/domain/model/Delivery"
import type { TransportWarning, WebhookRequest } from "@ratings/domain/ports/WebhookTransport"
import { Effect } from "effect"
import * as UndiciTransport from "../src/UndiciTransport.ts"
import { answer, receiver } from "./Receiver.ts"

const post = (url: string, timeoutMs = 2_000): WebhookRequest => ({
  url,
  headers: { "content-type": "application/json", "webhook-id": "d-1" },
  body: '{"event":"webhook.test"}',
  timeoutMs
})

interface Reported {
  readonly outcome: TransportOutcome
  readonly warning: TransportWarning | undefined
}

/** Starts a POST on a transport over its own agent; `reports` collects what `done` was handed. */
const started = (options: UndiciTransport.UndiciTransportOptions) =>
  Effect.gen(function* () {
    const transport = yield* UndiciTransport.make(options)
    const reports: Array<Reported> = []
    let settle: () => void = () => {}
    const first = new Promise<void>((resolve) => {
      settle = resolve
    })
    const start = (request: WebhookRequest) =>
      transport.start!(request, (outcome, warning) => {
        reports.push({ outcome, warning })
        settle()
      })
    return { start, reports, reported: Effect.promise(() => first) }
  })

describe("UndiciTransport start", () => {
  it.effect("reports the receiver's answer once, after the POST with its headers and body", () =>
    Effect.gen(function* () {
      const r = yield* receiver(answer(204))
      const t = yield* started({ allowPrivateTargets: true, requireHttps: false })
      t.start(post(`${r.origin}/hooks/a`))
      yield* t.reported
      assert.lengthOf(t.reports, 1)
      const { outcome, warning } = t.reports[0]!
      assert.strictEqual(outcome._tag, "Response")
      if (outcome._tag === "Response") assert.strictEqual(outcome.status, 204)
      assert.isUndefined(warning)
      assert.strictEqual(r.requests[0]!.headers["webhook-id"], "d-1")
      assert.strictEqual(r.requests[0]!.raw.toString("utf8"), '{"event":"webhook.test"}')
    }).pipe(Effect.scoped)
  )

  it.effect("an abort cuts a POST the receiver never answers: reported at once as no response", () =>
    Effect.gen(function* () {
      const r = yield* receiver(() => {})
      const t = yield* started({ allowPrivateTargets: true, requireHttps: false })
      const abort = t.start(post(r.origin, 10_000))
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
      const before = performance.now()
      abort()
      yield* t.reported
      assert.isBelow(performance.now() - before, 1_000)
      assert.lengthOf(t.reports, 1)
      assert.strictEqual(t.reports[0]!.outcome._tag, "NoResponse")
      abort()
      assert.lengthOf(t.reports, 1, "a second abort reports nothing more")
    }).pipe(Effect.scoped)
  )

  it.effect(
    "a refused target is target_refused for the caller, with the detail in the operator's warning only",
    () =>
      Effect.gen(function* () {
        const t = yield* started({ allowPrivateTargets: false, requireHttps: false })
        t.start(post("http://127.0.0.1:9/hook"))
        yield* t.reported
        const { outcome, warning } = t.reports[0]!
        assert.strictEqual(outcome._tag, "NoResponse")
        if (outcome._tag === "NoResponse") {
          assert.strictEqual(outcome.reason, "target_refused")
          assert.strictEqual(outcome.message, UndiciTransport.TargetNotAllowedMessage)
        }
        assert.strictEqual(warning?.message, "webhook target refused")
        assert.include(String(warning?.annotations.detail), "127.0.0.1")
        assert.strictEqual(warning?.annotations.webhook_id, "d-1")
      }).pipe(Effect.scoped)
  )
})
