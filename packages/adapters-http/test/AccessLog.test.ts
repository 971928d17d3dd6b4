/**
 * The access log's line (AccessLog.ts): one line per answered request, the
 * path without its query string, ` lane` for the lane of cache hits; lines
 * gathered and written once per turn of the event loop.
 */
import { performance } from "node:perf_hooks"
import { assert, describe, it } from "@effect/vitest"
import { formatAccessLine, makeAccessLog } from "../src/server/AccessLog.ts"

describe("the access log", () => {
  it("a line: local time, INFO (access), method, the path without its query, status, milliseconds, lane", () => {
    const at = new Date(2026, 10, 26, 4, 5, 6, 7)
    assert.strictEqual(
      formatAccessLine(at, "GET", "/api/v1/protocols?search=secret#x", 200, 0.414),
      "[04:05:06.007] INFO (access): GET /api/v1/protocols 200 0.41ms\n"
    )
    assert.strictEqual(
      formatAccessLine(at, "GET", "/api/v1/protocols/aave", 304, 12, true),
      "[04:05:06.007] INFO (access): GET /api/v1/protocols/aave 304 12.00ms lane\n"
    )
  })

  it("lines logged in one turn of the event loop are written together, once, in order", async () => {
    const writes: Array<string> = []
    const log = makeAccessLog((text) => writes.push(text))
    const started = performance.now()
    log.line("GET", "/a", 200, started)
    log.line("POST", "/b?x=1", 422, started, false)
    log.line("GET", "/c", 200, started, true)
    assert.deepStrictEqual(writes, [], "nothing is written within the turn")
    await new Promise((resolve) => setImmediate(resolve))
    assert.strictEqual(writes.length, 1)
    const lines = writes[0]!.trimEnd().split("\n")
    assert.deepStrictEqual(
      lines.map((l) => l.replace(/^\[[\d:.]+\] /, "").replace(/ [\d.]+ms/, " Nms")),
      [
        "INFO (access): GET /a 200 Nms",
        "INFO (access): POST /b 422 Nms",
        "INFO (access): GET /c 200 Nms lane"
      ]
    )
    log.line("GET", "/d", 404, started)
    await new Promise((resolve) => setImmediate(resolve))
    assert.strictEqual(writes.length, 2, "the next turn's line is the next write")
  })
})
