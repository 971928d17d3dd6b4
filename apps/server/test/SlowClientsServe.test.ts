/**
 * `ratings serve` bounds slow and oversized requests and the connections of
 * a client address as configured (issue 23 point 3; the adapter's own tests
 * are packages/adapters-http/test/SlowClients.test.ts): the reported case, a
 * coverage request declaring 99,999,999 bytes and sending 2, is a JSON 413 at
 * once (so is a GET the lane of cache hits would answer); a body trickled a
 * byte at a time is a JSON 408 within RATINGS_REQUEST_TIMEOUT; past
 * RATINGS_MAX_CONNECTIONS_PER_ADDRESS a connection is a JSON 429, and the log
 * says so once.
 */
import { mkdtempSync } from "node:fs"
import { connect } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { freePort } from "@ratings/adapters-sql/EmbeddedPostgres"
import { Effect } from "effect"
import { exited, scratchDatabase, startCli, waitForOutput } from "./CliHarness.ts"

let db: Awaited<ReturnType<typeof scratchDatabase>>

beforeAll(async () => {
  db = await scratchDatabase()
}, 60_000)

afterAll(async () => {
  await db?.drop()
})

interface Answer {
  readonly text: string
  /** Milliseconds to the first byte of the answer and to the close; undefined: none within the wait. */
  readonly firstByteMs: number | undefined
  readonly closedMs: number | undefined
}

/**
 * Sends `first` on a fresh connection, then `then` every `everyMs` (if
 * given), until the server closes it or `waitMs` pass.
 */
const send = (port: number, first: string, waitMs: number, then?: { bytes: string; everyMs: number }) =>
  new Promise<Answer>((resolve) => {
    const started = performance.now()
    let text = ""
    let firstByteMs: number | undefined
    const socket = connect(port, "127.0.0.1", () => socket.write(first))
    const trickle =
      then === undefined
        ? undefined
        : setInterval(() => {
            if (!socket.destroyed) socket.write(then.bytes)
          }, then.everyMs)
    const finish = (closedMs: number | undefined) => {
      clearInterval(trickle)
      clearTimeout(timer)
      socket.destroy()
      resolve({ text, firstByteMs, closedMs })
    }
    const timer = setTimeout(() => finish(undefined), waitMs)
    socket.on("data", (d) => {
      firstByteMs ??= performance.now() - started
      text += d
    })
    socket.on("error", () => {})
    socket.on("close", () => finish(performance.now() - started))
  })

/** A connection that got its answer to GET /health and stays open until destroyed. */
const hold = (port: number) =>
  new Promise<{ readonly text: string; readonly close: () => void }>((resolve) => {
    const socket = connect(port, "127.0.0.1", () => socket.write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n"))
    let text = ""
    socket.on("data", (d) => {
      text += d
      if (text.endsWith("}")) resolve({ text, close: () => socket.destroy() })
    })
    socket.on("error", () => {})
    socket.on("close", () => resolve({ text, close: () => {} }))
  })

const statusOf = (text: string) => /^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1]

describe("ratings serve, slow and oversized requests", () => {
  it("issue 23 point 3: a declared body over the limit is a 413 at once, a trickled body a 408 within RATINGS_REQUEST_TIMEOUT, and past RATINGS_MAX_CONNECTIONS_PER_ADDRESS a connection is a 429, logged once", async () => {
    const port = await Effect.runPromise(freePort)
    const child = startCli(["serve", "--no-demo"], {
      DATABASE_URL: db.url,
      PORT: String(port),
      RATINGS_DATA_DIR: mkdtempSync(join(tmpdir(), "ratings-slow-")),
      NODE_ENV: "test",
      RATINGS_HEADERS_TIMEOUT: "1 second",
      RATINGS_REQUEST_TIMEOUT: "2 seconds",
      RATINGS_MAX_CONNECTIONS_PER_ADDRESS: "3"
    })
    let output = ""
    child.stdout?.on("data", (d) => (output += d))
    child.stderr?.on("data", (d) => (output += d))
    try {
      await waitForOutput(child, /ratings service listening on/, 60_000)

      for (const first of [
        "POST /api/v1/contacts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 99999999\r\n\r\n{}",
        // A GET for the lane of cache hits, once it has been answered (and learned) without a body.
        "GET /api/v1/protocols HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\n{}"
      ]) {
        if (first.startsWith("GET"))
          for (let i = 0; i < 2; i++) {
            const plain = await send(
              port,
              "GET /api/v1/protocols HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
              5_000
            )
            assert.strictEqual(statusOf(plain.text), "200", plain.text)
          }
        const e = await send(port, first, 5_000, { bytes: "x", everyMs: 100 })
        assert.strictEqual(statusOf(e.text), "413", e.text)
        assert.include(e.text, '{"detail":"request body too large: at most 1048576 bytes (1 MiB)"}')
        assert.isBelow(e.firstByteMs ?? Number.POSITIVE_INFINITY, 1_000, e.text)
        assert.isBelow(e.closedMs ?? Number.POSITIVE_INFINITY, 2_000, "the connection is closed")
      }

      const trickled = await send(
        port,
        "POST /api/v1/contacts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n",
        10_000,
        { bytes: "a", everyMs: 200 }
      )
      assert.strictEqual(statusOf(trickled.text), "408", trickled.text)
      assert.include(trickled.text, '{"detail":"request not received in time"}')
      assert.isAtLeast(trickled.closedMs ?? 0, 1_900)
      assert.isBelow(trickled.closedMs ?? Number.POSITIVE_INFINITY, 4_500)

      const held = await Promise.all([0, 1, 2].map(() => hold(port)))
      for (const h of held) assert.strictEqual(statusOf(h.text), "200", h.text)
      for (let i = 0; i < 2; i++) {
        const refused = await send(port, "GET /health HTTP/1.1\r\nHost: x\r\n\r\n", 3_000)
        assert.strictEqual(statusOf(refused.text), "429", refused.text)
        assert.include(refused.text, "too many open connections from this address: at most 3 at once")
      }
      for (const h of held) h.close()
      await new Promise((resolve) => setTimeout(resolve, 300))
      assert.strictEqual(output.match(/the cap per address/g)?.length, 1, output)
      assert.strictEqual((await fetch(`http://127.0.0.1:${port}/health`)).status, 200)
    } finally {
      child.kill("SIGTERM")
      await exited(child)
    }
  }, 120_000)
})
