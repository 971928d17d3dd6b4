/**
 * What the multi-process and chaos tests add to WebhookHarness:
 *
 * - Redis, which the server processes share their rate-limit counters in
 *   (REDIS_URL): whether it can be reached (the tests that need it skip with
 *   the reason when it cannot, so they run on machines without Redis), and
 *   removal of exactly the keys a test made. The server has no setting for
 *   its key prefix, so a test never flushes anything: it deletes its own
 *   callers' counters by name.
 * - A chaos receiver: an https receiver that answers each request as a test
 *   decides (a status, a hang until the sender gives up, or a connection
 *   reset), and records every request with wall-clock start and end times,
 *   so they can be set against the attempt times the outbox stores.
 * - A seeded random source, so that a chaos run prints the seed it used.
 */
import type { ServerResponse } from "node:http"
import { createServer as createHttpsServer } from "node:https"
import type { AddressInfo } from "node:net"
import { NodeRedis } from "@effect/platform-node"
import { DefaultRedisKeyPrefix } from "@ratings/adapters-http/server/limits/RateLimit"
import { Effect, Result } from "effect"
import { Redis } from "effect/persistence"
import type { Certificate } from "./WebhookHarness.ts"

// ------------------------------------------------------------------- Redis

/** The Redis the tests use: RATINGS_TEST_REDIS_URL, REDIS_URL, or the local default. */
export const testRedisUrl: string =
  process.env.RATINGS_TEST_REDIS_URL ?? process.env.REDIS_URL ?? "redis://127.0.0.1:6379"

/** Runs Redis commands on one short-lived connection; fails with the reason when Redis cannot be used. */
const withRedis = <A>(url: string, use: (redis: Redis.Redis["Service"]) => Effect.Effect<A, unknown>) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const redis = yield* Redis.Redis
      return yield* use(redis)
    }).pipe(
      Effect.provide(NodeRedis.layer({ url, socket: { connectTimeout: 1_000 } })),
      Effect.timeout("3 seconds"),
      Effect.result
    )
  )

/** Undefined when Redis at `url` answers PING; otherwise why it cannot be used. */
export const redisProblem = async (url: string): Promise<string | undefined> => {
  const result = await withRedis(url, (redis) => redis.send<string>("PING"))
  if (Result.isSuccess(result))
    return result.success === "PONG" ? undefined : `PING answered ${result.success}`
  const failure: unknown = result.failure
  const cause = (failure as { readonly cause?: unknown }).cause ?? failure
  const detail = cause instanceof Error ? cause.message || cause.name : String(cause)
  return `Redis at ${url} is not reachable (${detail})`
}

/** The Redis keys of the rate-limit counters of one caller subject (`key:<id>`, `ip:<address>`). */
export const rateLimitKeys = (subject: string, windowsSeconds: ReadonlyArray<number>): Array<string> =>
  windowsSeconds.map((seconds) => `${DefaultRedisKeyPrefix}${subject}:${seconds}s`)

/** Deletes exactly these keys (never a pattern, never a flush); how many existed. */
export const deleteRedisKeys = async (url: string, keys: ReadonlyArray<string>): Promise<number> => {
  let deleted = 0
  for (let i = 0; i < keys.length; i += 500) {
    const chunk = keys.slice(i, i + 500)
    if (chunk.length === 0) continue
    const result = await withRedis(url, (redis) => redis.send<number>("DEL", ...chunk))
    if (Result.isFailure(result))
      throw new Error(`could not delete the test's Redis keys: ${String(result.failure)}`)
    deleted += Number(result.success)
  }
  return deleted
}

// ---------------------------------------------------------------- receiver

/** Wall-clock epoch ms with sub-millisecond precision, comparable with the times the server stores. */
export const wallClock = (): number => performance.timeOrigin + performance.now()

/**
 * How the chaos receiver answers one request: `ok` 200, `fail` 500, `hang`
 * never answers (the sender gives up at its receiver timeout), `reset`
 * destroys the connection once the request has arrived.
 */
export type ChaosKind = "ok" | "fail" | "hang" | "reset"

export interface ChaosRequest {
  /** The `webhook-id` header: the delivery_id. */
  readonly deliveryId: string
  readonly path: string
  /** 0 for the first request of this delivery_id, 1 for the second ... */
  readonly nth: number
  readonly kind: ChaosKind
  /** Wall-clock epoch ms when the request arrived. */
  readonly start: number
  /** Wall-clock epoch ms when it was answered or its connection closed; undefined while open. */
  end: number | undefined
  /** The status sent, or "aborted" when the connection closed without one; undefined while open. */
  outcome: number | "aborted" | undefined
}

export interface ChaosReceiver {
  readonly url: (path: string) => string
  readonly requests: ReadonlyArray<ChaosRequest>
  /** The requests open right now. */
  readonly openRequests: () => ReadonlyArray<ChaosRequest>
  readonly byDelivery: () => Map<string, Array<ChaosRequest>>
  readonly close: () => Promise<void>
}

export const startChaosReceiver = async (
  tls: Certificate,
  decide: (request: { readonly deliveryId: string; readonly path: string; readonly nth: number }) => ChaosKind
): Promise<ChaosReceiver> => {
  const requests: Array<ChaosRequest> = []
  const open = new Set<ChaosRequest>()
  const seen = new Map<string, number>()
  const server = createHttpsServer({ key: tls.key, cert: tls.cert }, (req, res: ServerResponse) => {
    const deliveryId = String(req.headers["webhook-id"] ?? "")
    const path = req.url ?? ""
    const nth = seen.get(deliveryId) ?? 0
    seen.set(deliveryId, nth + 1)
    const record: ChaosRequest = {
      deliveryId,
      path,
      nth,
      kind: decide({ deliveryId, path, nth }),
      start: wallClock(),
      end: undefined,
      outcome: undefined
    }
    requests.push(record)
    open.add(record)
    const settle = (outcome: number | "aborted") => {
      if (record.outcome !== undefined) return
      record.end = wallClock()
      record.outcome = outcome
      open.delete(record)
    }
    res.on("finish", () => settle(res.statusCode))
    res.on("close", () => settle(res.writableFinished ? res.statusCode : "aborted"))
    req.resume()
    req.on("end", () => {
      if (res.destroyed) return
      switch (record.kind) {
        case "ok":
          return res.writeHead(200, { "content-type": "text/plain" }).end("ok")
        case "fail":
          return res.writeHead(500, { "content-type": "text/plain" }).end("chaos")
        case "reset":
          return req.socket.destroy()
        case "hang":
          return
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: (path) => `https://127.0.0.1:${port}${path}`,
    requests,
    openRequests: () => [...open],
    byDelivery: () => {
      const by = new Map<string, Array<ChaosRequest>>()
      for (const r of requests) by.set(r.deliveryId, [...(by.get(r.deliveryId) ?? []), r])
      return by
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

// ------------------------------------------------------------------ random

/** mulberry32: a small seeded generator of floats in [0, 1), so a run can print its seed. */
export const seededRandom = (seed: number): (() => number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}
