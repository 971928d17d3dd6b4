/**
 * What a test run prints of the servers it starts: a test server whose test
 * captures no logs (and the test's own effects beside it) prints warnings and
 * errors, never an INFO line, so the run's log reads as test results. A test
 * that captures the logs still receives every line.
 */
import { assert, describe, it } from "@effect/vitest"
import { generateApiKey, hashApiKey } from "../src/server/ApiKeyCrypto.ts"
import { ApiKeyRepository } from "@ratings/domain/ports/ApiKeyRepository"
import { StoreError } from "@ratings/domain/ports/StoreError"
import { Effect, Layer, Logger } from "effect"
import { vi } from "vitest"
import { Seed } from "./fixtures.ts"
import { TestServer } from "./TestServer.ts"

/** Everything written to the console while `effect` runs (nothing of it reaches the run's output). */
const printedDuring = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const printed: Array<string> = []
      const spies = (["log", "info", "debug", "trace", "warn", "error"] as const).map((method) =>
        vi.spyOn(console, method).mockImplementation((...args: Array<unknown>) => {
          printed.push(args.map(String).join(" "))
        })
      )
      return { printed, spies }
    }),
    ({ printed }) => Effect.as(effect, printed),
    ({ spies }) =>
      Effect.sync(() => {
        for (const spy of spies) spy.mockRestore()
      })
  )

/** A key whose lookup fails as a store outage does: the server answers 503 and logs an error. */
const unreachableKey = generateApiKey()
const keysFailingFor = Layer.effect(
  ApiKeyRepository,
  Effect.gen(function* () {
    const real = yield* ApiKeyRepository
    return ApiKeyRepository.of({
      ...real,
      findActiveByHash: (hash) =>
        hash === hashApiKey(unreachableKey)
          ? Effect.fail(new StoreError({ message: "connect ECONNREFUSED 10.9.8.7:5432" }))
          : real.findActiveByHash(hash)
    })
  })
)

/** Requests that make the server log at Info (a refused key) and at Error (a key it cannot check). */
const logBothLevels = Effect.gen(function* () {
  const server = yield* TestServer
  const refused = yield* server.get("/api/v1/protocols", { authorization: "Bearer rk_not-a-key" })
  assert.strictEqual(refused.status, 401)
  const unchecked = yield* server.get("/api/v1/protocols", { authorization: `Bearer ${unreachableKey}` })
  assert.strictEqual(unchecked.status, 503)
  yield* Effect.logInfo("a line the test logs at Info")
  yield* Effect.logWarning("a line the test logs at Warn")
})

describe("test runs print test results, not server INFO lines", () => {
  it.live(
    "a test server that captures no logs prints its warnings and errors, and no INFO line (nor do the test's effects beside it)",
    () =>
      Effect.gen(function* () {
        const printed = yield* printedDuring(
          logBothLevels.pipe(Effect.provide(TestServer.layerMemory(Seed, { apiKeys: keysFailingFor })))
        )
        const text = printed.join("\n")
        assert.include(text, "key store failure answered 503", "the server's error is printed")
        assert.include(text, "a line the test logs at Warn")
        assert.notMatch(text, /\bINFO\b/, "no INFO line")
        assert.notInclude(text, "credential refused")
        assert.notInclude(text, "a line the test logs at Info")
      })
  )

  it.live("a test that captures the server's logs still receives every line, INFO included", () =>
    Effect.gen(function* () {
      const lines: Array<string> = []
      const capture = Logger.make(({ logLevel, message }) => {
        lines.push(`${logLevel} ${Array.isArray(message) ? message.join(" ") : String(message)}`)
      })
      const printed = yield* printedDuring(
        logBothLevels.pipe(
          Effect.provide(TestServer.layerMemory(Seed, { apiKeys: keysFailingFor, logger: capture }))
        )
      )
      assert.isTrue(
        lines.some((line) => line.startsWith("Info credential refused")),
        lines.join("\n")
      )
      assert.isTrue(lines.some((line) => line.startsWith("Error key store failure answered 503")))
      assert.notInclude(printed.join("\n"), "credential refused", "captured, not printed")
    })
  )
})
