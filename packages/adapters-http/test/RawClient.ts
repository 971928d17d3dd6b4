/**
 * A client on a raw TCP connection, for what HTTP clients will not do: send
 * a request a few bytes at a time, declare a body and not send it, hold a
 * connection open without a request. It records when the server's first
 * bytes came and when it closed the connection.
 */
import { request as httpRequest } from "node:http"
import { connect } from "node:net"
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { TestServer } from "./TestServer.ts"

/** Bytes to send, after waiting `afterMs` since the previous step (or the connection). */
export interface Step {
  readonly bytes: string | Buffer
  readonly afterMs?: number | undefined
}

export interface Exchange {
  /** Everything the server sent. */
  readonly answer: string
  /** The status of the first response, if one came. */
  readonly status: number | undefined
  /** The first response's headers, names in lower case. */
  readonly headers: Readonly<Record<string, string>>
  /** The first response's body (as far as it came). */
  readonly body: string
  /** Milliseconds from the connection to the server's first byte; undefined when none came. */
  readonly firstByteMs: number | undefined
  /** Milliseconds from the connection to its close by the server; undefined while still open at `waitMs`. */
  readonly closedMs: number | undefined
}

export interface ExchangeOptions {
  /** How long to wait for the server to close before giving up (the socket is then destroyed). */
  readonly waitMs: number
  /** The client's address to connect from (any 127.x.y.z is this machine). */
  readonly localAddress?: string | undefined
  /** More steps after `steps`, asked for one at a time until it gives none (an endless trickle). */
  readonly keepSending?: (() => Step | undefined) | undefined
}

/** Splits the first response of `answer` into status, headers and body. */
export const firstResponse = (answer: string) => {
  const end = answer.indexOf("\r\n\r\n")
  const head = end === -1 ? answer : answer.slice(0, end)
  const lines = head.split("\r\n")
  const status = /^HTTP\/1\.1 (\d{3}) /.exec(lines[0] ?? "")
  const headers: Record<string, string> = {}
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":")
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  let body = end === -1 ? "" : answer.slice(end + 4)
  const length = Number(headers["content-length"])
  if (Number.isFinite(length)) body = body.slice(0, length)
  return { status: status === null ? undefined : Number(status[1]), headers, body }
}

/**
 * Connects to `port` on 127.0.0.1, writes the steps in order (each after its
 * delay, stopping once the server has closed), and resolves when the server
 * closes the connection or after `waitMs`.
 */
export const exchange = (
  port: number,
  steps: ReadonlyArray<Step>,
  options: ExchangeOptions
): Promise<Exchange> =>
  new Promise((resolve) => {
    const started = performance.now()
    const chunks: Array<Buffer> = []
    let firstByteMs: number | undefined
    let closedMs: number | undefined
    let settled = false
    const socket = connect({
      port,
      host: "127.0.0.1",
      ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress })
    })
    const timers = new Set<NodeJS.Timeout>()
    const finish = () => {
      if (settled) return
      settled = true
      for (const timer of timers) clearTimeout(timer)
      socket.destroy()
      const answer = Buffer.concat(chunks).toString("latin1")
      resolve({ answer, ...firstResponse(answer), firstByteMs, closedMs })
    }
    socket.on("data", (chunk: Buffer) => {
      firstByteMs ??= performance.now() - started
      chunks.push(chunk)
    })
    // A reset after the answer counts as the close it is.
    socket.on("error", () => {})
    socket.on("close", () => {
      closedMs = performance.now() - started
      finish()
    })
    const later = (ms: number, run: () => void) => {
      const timer = setTimeout(() => {
        timers.delete(timer)
        run()
      }, ms)
      timers.add(timer)
    }
    const write = (index: number) => {
      if (settled || socket.destroyed || socket.writableEnded) return
      const step = index < steps.length ? steps[index] : options.keepSending?.()
      if (step === undefined) return
      later(step.afterMs ?? 0, () => {
        if (settled || socket.destroyed) return
        socket.write(step.bytes, () => write(index + 1))
      })
    }
    socket.once("connect", () => write(0))
    later(options.waitMs, finish)
  })

/** A request's head (request line and headers) as sent on the wire. */
export const head = (method: string, target: string, headers: Readonly<Record<string, string>> = {}) =>
  `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("")}\r\n`

/** `text` a byte at a time, each byte `everyMs` after the previous one. */
export const trickle = (text: string, everyMs: number): ReadonlyArray<Step> =>
  [...text].map((c) => ({ bytes: c, afterMs: everyMs }))

/** An exchange in a line, for an assertion's message. */
export const describeExchange = (e: Exchange) =>
  `status ${e.status}, first byte ${e.firstByteMs?.toFixed(0)} ms, closed ${e.closedMs?.toFixed(0)} ms: ${e.answer.slice(0, 300)}`

/** Asserts an exchange ended in the API's JSON error: `status`, and a `detail` equal to or matching `detail`. */
export const assertJsonError = (e: Exchange, status: number, detail: RegExp | string) => {
  assert.strictEqual(e.status, status, describeExchange(e))
  assert.match(e.headers["content-type"] ?? "", /^application\/json/, describeExchange(e))
  const body = JSON.parse(e.body) as { detail: string }
  if (typeof detail === "string") assert.strictEqual(body.detail, detail)
  else assert.match(body.detail, detail)
}

/** An answer to `rawRequest`: its status, headers and body text. */
export interface RawAnswer {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly text: string
}

/** A request to the test server as written (fetch would normalise the path), answering status, headers and body. */
export const rawRequest = (
  method: string,
  target: string,
  headers: Record<string, string> = {},
  body?: string
) =>
  Effect.gen(function* () {
    const server = yield* TestServer
    const url = new URL(server.baseUrl)
    return yield* Effect.promise(
      () =>
        new Promise<RawAnswer>((resolve, reject) => {
          const req = httpRequest(
            { host: url.hostname, port: url.port, method, path: target, headers },
            (res) => {
              let text = ""
              res.on("data", (d) => (text += d))
              res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }))
            }
          )
          req.on("error", reject)
          req.end(body)
        })
    )
  })
