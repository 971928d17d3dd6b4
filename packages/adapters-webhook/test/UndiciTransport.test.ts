import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import type { TransportOutcome } from "@ratings/domain/model/Delivery"
import { type WebhookRequest, WebhookTransport } from "@ratings/domain/ports/WebhookTransport"
import { Effect, Fiber, Formatter, Logger, References } from "effect"
import * as UndiciTransport from "../src/UndiciTransport.ts"
import { answer, closedPort, httpsReceiver, receiver } from "./Receiver.ts"

const permissive = { allowPrivateTargets: true, requireHttps: false } as const
const strict = { allowPrivateTargets: false, requireHttps: false } as const

const post = (url: string, timeoutMs = 2_000): WebhookRequest => ({
  url,
  headers: { "content-type": "application/json", "webhook-id": "d-1" },
  body: '{"event":"webhook.test"}',
  timeoutMs
})

/** Sends with a transport built from `layer(options)`, the way the server wires it. */
const send = (request: WebhookRequest, options: UndiciTransport.UndiciTransportOptions = permissive) =>
  Effect.gen(function* () {
    const transport = yield* WebhookTransport
    return yield* transport.send(request)
  }).pipe(Effect.provide(UndiciTransport.layer(options)))

const assertResponse = (outcome: TransportOutcome, status: number) => {
  assert.strictEqual(outcome._tag, "Response", JSON.stringify(outcome))
  if (outcome._tag === "Response") assert.strictEqual(outcome.status, status)
}

const assertNoResponse = (outcome: TransportOutcome, reason: string) => {
  assert.strictEqual(outcome._tag, "NoResponse", JSON.stringify(outcome))
  if (outcome._tag === "NoResponse") assert.strictEqual(outcome.reason, reason, outcome.message)
}

describe("UndiciTransport", () => {
  describe("receiver answers (spec part 3: 2xx delivers, non-2xx retries)", () => {
    it.effect(
      "a 2xx answer is a Response with that status; the receiver gets the POST, headers and body",
      () =>
        Effect.gen(function* () {
          const r = yield* receiver(answer(204))
          const outcome = yield* send(post(`${r.origin}/hooks/a?x=1`))
          assertResponse(outcome, 204)
          assert.strictEqual(r.requests.length, 1)
          assert.strictEqual(r.requests[0]!.method, "POST")
          assert.strictEqual(r.requests[0]!.path, "/hooks/a?x=1")
          assert.strictEqual(r.requests[0]!.headers["content-type"], "application/json")
          assert.strictEqual(r.requests[0]!.headers["webhook-id"], "d-1")
          assert.strictEqual(r.requests[0]!.raw.toString("utf8"), '{"event":"webhook.test"}')
        })
    )

    it.effect("a 500 answer is a Response 500 (a non-2xx, which the state machine retries)", () =>
      Effect.gen(function* () {
        const r = yield* receiver(answer(500))
        assertResponse(yield* send(post(r.origin)), 500)
      })
    )

    it.effect("a 302 is a Response 302 and the redirect is not followed: its target receives nothing", () =>
      Effect.gen(function* () {
        const elsewhere = yield* receiver(answer(200))
        const r = yield* receiver(answer(302, { location: `${elsewhere.origin}/stolen` }))
        assertResponse(yield* send(post(r.origin)), 302)
        assert.strictEqual(r.requests.length, 1)
        assert.strictEqual(elsewhere.connections(), 0)
        assert.strictEqual(elsewhere.requests.length, 0)
      })
    )

    it.effect(
      "only a bounded part of a large answer is read: a body that never ends is still a Response",
      () =>
        Effect.gen(function* () {
          // 256 KiB then silence: reading it to the end would run into the budget.
          const r = yield* receiver((_req, res) => {
            res.writeHead(200, { "content-type": "text/plain" })
            res.write(Buffer.alloc(256 * 1024, 97))
          })
          const outcome = yield* send(post(r.origin, 3_000))
          assertResponse(outcome, 200)
          assert.isBelow(outcome.elapsed_ms, 2_000)
        })
    )
  })

  describe("no response within the budget (spec part 3: no response within 10 s)", () => {
    it.effect("a receiver that never answers is a NoResponse timeout at about the budget", () =>
      Effect.gen(function* () {
        const r = yield* receiver(() => {})
        const outcome = yield* send(post(r.origin, 500))
        assertNoResponse(outcome, "timeout")
        assert.isAtLeast(outcome.elapsed_ms, 480)
        assert.isBelow(outcome.elapsed_ms, 1_500)
        assert.strictEqual(r.requests.length, 1)
      })
    )

    it.effect(
      "the budget covers the body: headers sent but the body unfinished at the budget is a timeout",
      () =>
        Effect.gen(function* () {
          const r = yield* receiver((_req, res) => {
            res.writeHead(200, { "content-length": "100" })
            res.write("partial")
          })
          const outcome = yield* send(post(r.origin, 500))
          assertNoResponse(outcome, "timeout")
          assert.isAtLeast(outcome.elapsed_ms, 480)
          assert.isBelow(outcome.elapsed_ms, 1_500)
        })
    )

    it.effect(
      "with the real 10 s budget, a 2xx at 9 s is a Response and one at 11 s is a timeout",
      () =>
        Effect.gen(function* () {
          const after = (ms: number) =>
            receiver((_req, res) => {
              setTimeout(() => res.writeHead(200).end("late"), ms)
            })
          const at9 = yield* after(9_000)
          const at11 = yield* after(11_000)
          const [nine, eleven] = yield* Effect.all(
            [send(post(at9.origin, 10_000)), send(post(at11.origin, 10_000))],
            { concurrency: 2 }
          )
          assertResponse(nine, 200)
          assert.isAtLeast(nine.elapsed_ms, 8_900)
          assertNoResponse(eleven, "timeout")
          assert.isAtLeast(eleven.elapsed_ms, 9_950)
          assert.isBelow(eleven.elapsed_ms, 10_900)
        }),
      { timeout: 30_000 }
    )
    it.effect(
      "an interrupted send is aborted at once: its connection is closed, not left to the budget",
      () =>
        Effect.gen(function* () {
          let closed = false
          const r = yield* receiver((_req, _res, socket) => {
            socket.once("close", () => {
              closed = true
            })
          })
          // The transport outlives the send: only the abort can close the connection this soon.
          const transport = yield* WebhookTransport
          const fiber = yield* Effect.forkChild(transport.send(post(r.origin, 10_000)))
          const waitFor = (done: () => boolean) =>
            Effect.gen(function* () {
              for (let i = 0; i < 200 && !done(); i++)
                yield* Effect.promise(() => new Promise((ok) => setTimeout(ok, 10)))
              return done()
            })
          assert.isTrue(yield* waitFor(() => r.requests.length === 1), "the request arrived")
          yield* Fiber.interrupt(fiber)
          assert.isTrue(
            yield* waitFor(() => closed),
            "the connection was closed within 2 s of the interruption"
          )
        }).pipe(Effect.provide(UndiciTransport.layer(permissive)))
    )
  })

  describe("network failures (spec part 3: no response)", () => {
    it.effect("a receiver that destroys the connection is connection_reset", () =>
      Effect.gen(function* () {
        const r = yield* receiver((_req, _res, socket) => socket.destroy())
        assertNoResponse(yield* send(post(r.origin)), "connection_reset")
      })
    )

    it.effect("a receiver that resets the connection (TCP RST) is connection_reset", () =>
      Effect.gen(function* () {
        const r = yield* receiver((_req, _res, socket) => socket.resetAndDestroy())
        assertNoResponse(yield* send(post(r.origin)), "connection_reset")
      })
    )

    it.effect("nothing listening is connection_refused", () =>
      Effect.gen(function* () {
        const port = yield* closedPort
        assertNoResponse(yield* send(post(`http://127.0.0.1:${port}/`)), "connection_refused")
      })
    )

    it.effect("a name that does not resolve is dns while configuration allows private targets", () =>
      Effect.gen(function* () {
        assertNoResponse(yield* send(post("http://nonexistent.invalid/")), "dns")
      })
    )

    it.effect("a receiver whose certificate is not trusted is tls, and nothing is posted", () =>
      Effect.gen(function* () {
        const dir = mkdtempSync(join(tmpdir(), "webhook-tls-"))
        const tls = yield* Effect.sync(() => {
          execFileSync("openssl", [
            ...["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"],
            ...["-subj", "/CN=127.0.0.1", "-days", "1"],
            ...["-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")]
          ])
          return {
            key: readFileSync(join(dir, "key.pem"), "utf8"),
            cert: readFileSync(join(dir, "cert.pem"), "utf8")
          }
        }).pipe(Effect.ensuring(Effect.sync(() => rmSync(dir, { recursive: true, force: true }))))
        const r = yield* httpsReceiver(tls, answer(200))
        assertNoResponse(yield* send(post(r.origin)), "tls")
        assert.strictEqual(r.requests.length, 0)
      })
    )
  })

  describe("connection pooling (issue 6: thousands of deliveries/s to one receiver)", () => {
    it.effect("sequential deliveries to one receiver reuse keep-alive connections instead of one each", () =>
      Effect.gen(function* () {
        const r = yield* receiver(answer(200))
        const transport = yield* WebhookTransport
        for (let i = 0; i < 50; i++) assertResponse(yield* transport.send(post(r.origin)), 200)
        assert.strictEqual(r.requests.length, 50)
        // undici may hand the second request to a fresh connection while the
        // first is still finishing its response; from then on they are reused.
        assert.isAtMost(r.connections(), 2)
      }).pipe(Effect.provide(UndiciTransport.layer(permissive)))
    )

    it.effect(
      "a burst to one receiver opens at most maxConnectionsPerOrigin connections and all arrive",
      () =>
        Effect.gen(function* () {
          const r = yield* receiver((_req, res) => {
            setTimeout(() => res.writeHead(200).end(), 5)
          })
          const transport = yield* WebhookTransport
          const outcomes = yield* Effect.forEach(
            Array.from({ length: 400 }, () => post(r.origin, 10_000)),
            (request) => transport.send(request),
            { concurrency: "unbounded" }
          )
          for (const outcome of outcomes) assertResponse(outcome, 200)
          assert.strictEqual(r.requests.length, 400)
          assert.isAtMost(r.connections(), 8)
          assert.isAtLeast(r.connections(), 2)
        }).pipe(Effect.provide(UndiciTransport.layer({ ...permissive, maxConnectionsPerOrigin: 8 })))
    )
  })

  describe("target policy (issue 6: no private, loopback or link-local targets unless allowed; issue 7: SSRF)", () => {
    const refusedForms = (port: number) => [
      `http://127.0.0.1:${port}/`,
      `http://localhost:${port}/`,
      `http://[::1]:${port}/`,
      `http://169.254.169.254:${port}/latest/meta-data/`,
      `http://10.0.0.1:${port}/`,
      `http://0x7f000001:${port}/`,
      `http://2130706433:${port}/`,
      `http://0177.0.0.1:${port}/`,
      `http://127.1:${port}/`,
      `http://[::ffff:127.0.0.1]:${port}/`,
      `http://[::ffff:7f00:1]:${port}/`,
      `http://0.0.0.0:${port}/`,
      `http://[::]:${port}/`,
      `http://100.64.0.1:${port}/`,
      `http://192.168.1.1:${port}/`,
      `http://[fd00::1]:${port}/`,
      `http://[fe80::1]:${port}/`
    ]

    it.effect("loopback, private, link-local and metadata targets in every notation are target_refused", () =>
      Effect.gen(function* () {
        const r = yield* receiver(answer(200))
        for (const url of refusedForms(r.port)) {
          const outcome = yield* send(post(url), strict)
          assertNoResponse(outcome, "target_refused")
          if (outcome._tag === "NoResponse")
            assert.strictEqual(outcome.message, UndiciTransport.TargetNotAllowedMessage, url)
        }
        assert.strictEqual(r.connections(), 0, "no connection reached the loopback receiver")
        assert.strictEqual(r.requests.length, 0)
      })
    )

    it.effect("the same loopback forms do reach the receiver when configuration allows private targets", () =>
      Effect.gen(function* () {
        const r = yield* receiver(answer(200))
        const loopback = [
          `http://127.0.0.1:${r.port}/`,
          `http://localhost:${r.port}/`,
          `http://0x7f000001:${r.port}/`,
          `http://2130706433:${r.port}/`,
          `http://[::ffff:127.0.0.1]:${r.port}/`
        ]
        for (const url of loopback) assertResponse(yield* send(post(url)), 200)
        assert.strictEqual(r.requests.length, loopback.length)
      })
    )

    it.effect("a name is checked on every address it resolves to: one loopback answer refuses it", () =>
      Effect.gen(function* () {
        const r = yield* receiver(answer(200))
        const resolveHost: UndiciTransport.ResolveHost = async () => [
          { address: "93.184.215.14", family: 4 },
          { address: "127.0.0.1", family: 4 }
        ]
        const outcome = yield* send(post(`http://mixed.example:${r.port}/`), { ...strict, resolveHost })
        assertNoResponse(outcome, "target_refused")
        assert.strictEqual(r.connections(), 0)
      })
    )

    it.effect(
      "the connection goes to the address that was resolved and checked, not to a second lookup",
      () =>
        Effect.gen(function* () {
          const r = yield* receiver(answer(200))
          const lookups: Array<string> = []
          const resolveHost: UndiciTransport.ResolveHost = async (hostname) => {
            lookups.push(hostname)
            return [{ address: "127.0.0.1", family: 4 }]
          }
          const outcome = yield* send(post(`http://rebind.example:${r.port}/x`), {
            ...permissive,
            resolveHost
          })
          assertResponse(outcome, 200)
          assert.deepStrictEqual(lookups, ["rebind.example"])
          assert.strictEqual(r.requests[0]!.headers.host, `rebind.example:${r.port}`)
          const refused = yield* send(post(`http://rebind.example:${r.port}/x`), { ...strict, resolveHost })
          assertNoResponse(refused, "target_refused")
          assert.strictEqual(r.requests.length, 1)
        })
    )

    it.effect(
      "a refused target's message says only that the target is not allowed, never the name's address (issue 13: no internal-name oracle); the operator's log has the detail",
      () =>
        Effect.gen(function* () {
          const r = yield* receiver(answer(200))
          const logged: Array<string> = []
          const logger = Logger.make(({ message, fiber }) => {
            logged.push(
              `${Formatter.format(message)} ${JSON.stringify(fiber.getRef(References.CurrentLogAnnotations))}`
            )
          })
          const resolveHost: UndiciTransport.ResolveHost = async (hostname) =>
            hostname === "internal.example"
              ? [{ address: "10.1.2.3", family: 4 }]
              : [{ address: "127.0.0.1", family: 4 }]
          for (const url of [
            `http://internal.example:${r.port}/`,
            `http://localhost:${r.port}/`,
            `http://db.internal.example.:${r.port}/x`
          ]) {
            const outcome = yield* send(post(url), { ...strict, resolveHost }).pipe(
              Effect.provide(Logger.layer([logger]))
            )
            assertNoResponse(outcome, "target_refused")
            if (outcome._tag === "NoResponse") {
              assert.strictEqual(outcome.message, UndiciTransport.TargetNotAllowedMessage, url)
              for (const secret of ["10.1.2.3", "127.0.0.1", "internal", "localhost", "private", "loopback"])
                assert.notInclude(outcome.message, secret, url)
            }
          }
          assert.strictEqual(r.connections(), 0)
          assert.lengthOf(logged, 3)
          assert.include(logged[0], "webhook target refused")
          assert.include(logged[0], "internal.example: refused target 10.1.2.3")
          assert.include(logged[1], "localhost: refused target 127.0.0.1")
        })
    )

    it.effect(
      "a name that does not resolve is answered exactly like a name that resolves to a refused address: target_refused with one message, and no connection (no DNS oracle); the operator's log tells them apart",
      () =>
        Effect.gen(function* () {
          const r = yield* receiver(answer(200))
          const logged: Array<string> = []
          const logger = Logger.make(({ message, fiber }) => {
            logged.push(
              `${Formatter.format(message)} ${JSON.stringify(fiber.getRef(References.CurrentLogAnnotations))}`
            )
          })
          const notFound = (hostname: string) =>
            Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND", hostname })
          const resolveHost: UndiciTransport.ResolveHost = async (hostname) => {
            if (hostname === "db.internal.example") return [{ address: "10.1.2.3", family: 4 }]
            throw notFound(hostname)
          }
          const answers = []
          for (const [url, options] of [
            [`http://db.internal.example:${r.port}/`, { ...strict, resolveHost }],
            [`http://missing.internal.example:${r.port}/`, { ...strict, resolveHost }],
            // The system resolver: a name under .invalid never resolves.
            [`http://nonexistent.invalid:${r.port}/`, strict]
          ] as const) {
            const outcome = yield* send(post(url), options).pipe(Effect.provide(Logger.layer([logger])))
            assertNoResponse(outcome, "target_refused")
            const { elapsed_ms: _, ...answer } = outcome as Extract<TransportOutcome, { _tag: "NoResponse" }>
            answers.push(answer)
          }
          assert.deepStrictEqual(answers[0], {
            _tag: "NoResponse",
            reason: "target_refused",
            message: UndiciTransport.TargetNotAllowedMessage
          })
          assert.deepStrictEqual(answers[1], answers[0], "a missing name answers like a refused one")
          assert.deepStrictEqual(answers[2], answers[0], "so does a name the system resolver cannot resolve")
          assert.strictEqual(r.connections(), 0)
          assert.lengthOf(logged, 3)
          assert.include(logged[0], "db.internal.example: refused target 10.1.2.3")
          assert.include(logged[1], "missing.internal.example: did not resolve (ENOTFOUND)")
          assert.include(logged[2], "nonexistent.invalid: did not resolve")
        })
    )

    it.effect("requireHttps refuses an http URL with a message saying https is required", () =>
      Effect.gen(function* () {
        const r = yield* receiver(answer(200))
        const outcome = yield* send(post(r.origin), { allowPrivateTargets: true, requireHttps: true })
        assertNoResponse(outcome, "target_refused")
        if (outcome._tag === "NoResponse") assert.match(outcome.message, /https/)
        assert.strictEqual(r.connections(), 0)
      })
    )

    it.effect("a URL that is not absolute http(s) is target_refused, not a crash", () =>
      Effect.gen(function* () {
        for (const url of ["not a url", "/relative", "ftp://127.0.0.1/", "file:///etc/passwd"]) {
          assertNoResponse(yield* send(post(url)), "target_refused")
        }
      })
    )
  })
})
