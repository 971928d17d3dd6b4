/**
 * The webhook operations settings: when a failing endpoint is disabled
 * (RATINGS_WEBHOOK_DISABLE_AFTER, default 5 days) and how long delivery
 * history is kept (RATINGS_WEBHOOK_RETENTION, default 30 days, at least an
 * hour). A value the parser does not take stops the start naming the setting.
 */
import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Result } from "effect"
import { WebhookDeliveryConfig } from "../src/WebhookConfig.ts"

const delivery = (env: Record<string, string>) =>
  Effect.runSync(Effect.result(WebhookDeliveryConfig.parse(ConfigProvider.fromEnv({ env }))))

const settings = (env: Record<string, string>) => {
  const result = delivery(env)
  if (Result.isFailure(result)) throw new Error(`expected settings, got ${String(result.failure)}`)
  return result.success
}

const refusal = (env: Record<string, string>) => {
  const result = delivery(env)
  assert.isTrue(Result.isFailure(result), `expected ${JSON.stringify(env)} to be refused`)
  return String((result as Result.Failure<unknown, unknown>).failure)
}

describe("webhook operations settings", () => {
  it("RATINGS_WEBHOOK_DISABLE_AFTER defaults to 5 days and takes a positive duration", () => {
    assert.strictEqual(Duration.toMillis(settings({}).disableAfter), 5 * 86_400_000)
    assert.strictEqual(
      Duration.toMillis(settings({ RATINGS_WEBHOOK_DISABLE_AFTER: "2 days" }).disableAfter),
      2 * 86_400_000
    )
    for (const value of ["0 seconds", "soon", "-1 days"]) {
      assert.include(refusal({ RATINGS_WEBHOOK_DISABLE_AFTER: value }), "RATINGS_WEBHOOK_DISABLE_AFTER")
    }
  })

  it("RATINGS_WEBHOOK_RETENTION defaults to 30 days and is at least 1 hour", () => {
    assert.strictEqual(Duration.toMillis(settings({}).retention), 30 * 86_400_000)
    assert.strictEqual(
      Duration.toMillis(settings({ RATINGS_WEBHOOK_RETENTION: "90 days" }).retention),
      90 * 86_400_000
    )
    const short = refusal({ RATINGS_WEBHOOK_RETENTION: "10 minutes" })
    assert.include(short, "RATINGS_WEBHOOK_RETENTION")
    assert.include(short, "at least 1 hour")
    assert.include(refusal({ RATINGS_WEBHOOK_RETENTION: "forever" }), "RATINGS_WEBHOOK_RETENTION")
  })

  it("both are in the README's configuration table", () => {
    const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8")
    assert.include(readme, "| `RATINGS_WEBHOOK_DISABLE_AFTER` | `5 days` |")
    assert.include(readme, "| `RATINGS_WEBHOOK_RETENTION` | `30 days` |")
  })
})
