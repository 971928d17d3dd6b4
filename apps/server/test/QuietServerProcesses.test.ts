/**
 * What a test run prints of the server processes the tests model in process
 * (ServerProcess.ts): no access lines and no INFO lines, so the run's log
 * reads as test results; their warnings and errors still reach it. A test
 * that reads the access lines passes its own access log (HitLane.test.ts).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { vi } from "vitest"
import { responseCache } from "../src/Layers.ts"
import { importedDatabase, serverProcess } from "./ServerProcess.ts"

/** Everything written to the console and to standard output while `effect` runs (none of it is printed). */
const printedDuring = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const printed: Array<string> = []
      const keep = (...args: Array<unknown>) => {
        printed.push(args.map(String).join(" "))
      }
      const spies = [
        ...(["log", "info", "debug", "trace", "warn", "error"] as const).map((method) =>
          vi.spyOn(console, method).mockImplementation(keep)
        ),
        vi.spyOn(process.stdout, "write").mockImplementation((chunk: unknown) => {
          keep(chunk)
          return true
        })
      ]
      return { printed, spies }
    }),
    // The access log writes once per turn of the event loop: let a turn pass before looking.
    ({ printed }) => Effect.as(Effect.andThen(effect, Effect.sleep("50 millis")), printed),
    ({ spies }) =>
      Effect.sync(() => {
        for (const spy of spies) spy.mockRestore()
      })
  )

const get = (url: string, authorization?: string) =>
  Effect.promise(() => fetch(url, authorization === undefined ? {} : { headers: { authorization } }))

describe("test runs print test results, not server INFO lines", () => {
  it.live(
    "a server process of the tests prints no access line and no INFO line, and its warnings still reach the output",
    () =>
      Effect.gen(function* () {
        const { url } = yield* importedDatabase
        const printed = yield* printedDuring(
          Effect.gen(function* () {
            const { baseUrl, b } = yield* serverProcess(url, responseCache())
            for (const path of ["/api/v1/protocols", "/api/v1/protocols", "/api/v1/protocols/lendwell"])
              assert.strictEqual((yield* get(baseUrl + path)).status, 200, path)
            assert.strictEqual((yield* get(`${baseUrl}/api/v1/protocols`, "Bearer rk_not-a-key")).status, 401)
            yield* Effect.logInfo("an INFO line in the process").pipe(Effect.provideContext(b))
            yield* Effect.logWarning("a warning in the process").pipe(Effect.provideContext(b))
          }).pipe(Effect.scoped)
        )
        const text = printed.join("\n")
        assert.include(text, "a warning in the process")
        assert.notMatch(text, /\bINFO\b/, "no INFO line")
        assert.notInclude(text, "GET /api/v1/protocols", "no access line")
      }),
    60_000
  )
})
