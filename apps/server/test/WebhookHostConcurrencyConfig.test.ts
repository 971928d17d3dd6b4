/**
 * The per-host bound of webhook sends (RATINGS_WEBHOOK_HOST_CONCURRENCY,
 * default 64, a whole number from 1 to 1000) and the default of the overall
 * bound (RATINGS_WEBHOOK_CONCURRENCY, 256). A value outside the range stops
 * the start naming the setting.
 */
import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Result } from "effect"
import { WebhookDeliveryConfig, WebhookHostConcurrencyConfig } from "../src/WebhookConfig.ts"

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

describe("webhook send bounds", () => {
  it("RATINGS_WEBHOOK_HOST_CONCURRENCY defaults to 64 and takes a whole number from 1 to 1000", () => {
    assert.strictEqual(settings({}).hostConcurrency, 64)
    assert.strictEqual(settings({ RATINGS_WEBHOOK_HOST_CONCURRENCY: "8" }).hostConcurrency, 8)
    assert.strictEqual(settings({ RATINGS_WEBHOOK_HOST_CONCURRENCY: "1000" }).hostConcurrency, 1000)
    for (const value of ["0", "-3", "2.5", "1001", "many"]) {
      const refused = refusal({ RATINGS_WEBHOOK_HOST_CONCURRENCY: value })
      assert.include(refused, "RATINGS_WEBHOOK_HOST_CONCURRENCY", value)
    }
    assert.include(
      refusal({ RATINGS_WEBHOOK_HOST_CONCURRENCY: "0" }),
      "must be a whole number from 1 to 1000"
    )
    const alone = Effect.runSync(
      Effect.result(
        WebhookHostConcurrencyConfig.parse(
          ConfigProvider.fromEnv({ env: { RATINGS_WEBHOOK_HOST_CONCURRENCY: "12" } })
        )
      )
    )
    assert.deepStrictEqual(alone, Result.succeed(12))
  })

  it("RATINGS_WEBHOOK_CONCURRENCY defaults to 256", () => {
    assert.strictEqual(settings({}).concurrency, 256)
  })

  it("both are in the README's configuration table with their defaults", () => {
    const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8")
    assert.include(readme, "| `RATINGS_WEBHOOK_CONCURRENCY` | `256` |")
    assert.include(readme, "| `RATINGS_WEBHOOK_HOST_CONCURRENCY` | `64` |")
  })
})
