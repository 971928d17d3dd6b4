/**
 * The lane of cache hits (packages/adapters-http/src/server/HitLane.ts,
 * issue 15), in a server built from the production layers over Postgres:
 * a read the router has answered from the response cache is answered again
 * in front of the router, with the same bytes and headers, and with every
 * rule of the router kept: freshness after a write, revocation, the tier
 * projection, the rate limit (counted, and refused with the router's 429),
 * the failed-credential allowance. The access log tells which path answered
 * (` lane` at the end of the line).
 */
import { assert, describe, it } from "@effect/vitest"
import type { AccessLog } from "@ratings/adapters-http/server/AccessLog"
import { generateApiKey, issueApiKey } from "@ratings/adapters-http/server/ApiKeyCrypto"
import type { RateLimitTable } from "@ratings/adapters-http/server/limits/RateLimit"
import type { KeyTier } from "@ratings/domain/model/Caller"
import { ApiKeyRepository } from "@ratings/domain/ports/ApiKeyRepository"
import { Publisher } from "@ratings/domain/services/Publisher"
import { type Context, Effect, PubSub, Redacted } from "effect"
import { responseCache } from "../src/Layers.ts"
import { importedDatabase, type ServeOptions, serverProcess } from "./ServerProcess.ts"

/** Access lines, in order: `[path, status, lane]`. */
const accessLines = () => {
  const lines: Array<{ readonly path: string; readonly status: number; readonly lane: boolean }> = []
  const log: AccessLog = {
    line: (_method, url, status, _started, lane) => lines.push({ path: url, status, lane: lane === true })
  }
  return { lines, log, last: () => lines[lines.length - 1]! }
}

interface Answer {
  readonly status: number
  readonly body: string
  readonly headers: Record<string, string>
}

/** Headers that differ between two answers by nature: the date, and the rate-limit state. */
const PerRequest = new Set(["date", "ratelimit-remaining", "ratelimit-reset", "retry-after"])

const comparable = (answer: Answer) => ({
  status: answer.status,
  body: answer.body,
  headers: Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !PerRequest.has(name)))
})

const get = (baseUrl: string, path: string, headers: Record<string, string> = {}, method = "GET") =>
  Effect.promise(async (): Promise<Answer> => {
    const response = await fetch(`${baseUrl}/api/v1${path}`, { headers, method })
    return {
      status: response.status,
      body: await response.text(),
      headers: Object.fromEntries(response.headers)
    }
  })

const createKey = (a: Context.Context<ApiKeyRepository>, tier: KeyTier) =>
  Effect.gen(function* () {
    const { key, record } = issueApiKey({ name: `lane ${tier}`, tier })
    yield* Effect.orDie((yield* ApiKeyRepository).create(record))
    return { id: record.id, bearer: { authorization: `Bearer ${key}` } }
  }).pipe(Effect.provideContext(a))

/** A server over a fresh copy of the example data, with its access lines, and process A beside it. */
const laneServer = (options: ServeOptions = {}) =>
  Effect.gen(function* () {
    const { url, a } = yield* importedDatabase
    const access = accessLines()
    const { baseUrl, cacheB } = yield* serverProcess(url, responseCache(), {
      accessLog: access.log,
      ...options
    })
    return { a, baseUrl, access, cache: cacheB }
  })

const Reads = ["/protocols?limit=50", "/protocols/lendwell", "/protocols/lendwell/scorecards"] as const

describe("the lane of cache hits", () => {
  it.live(
    "a read answered from the cache is answered again by the lane, with the router's bytes and headers, for every caller kind",
    () =>
      Effect.gen(function* () {
        const { a, baseUrl, access } = yield* laneServer()
        const callers: ReadonlyArray<readonly [string, Record<string, string>]> = [
          ["anonymous", {}],
          ["free", (yield* createKey(a, "free")).bearer],
          ["pro", (yield* createKey(a, "pro")).bearer],
          ["enterprise", (yield* createKey(a, "enterprise")).bearer]
        ]
        for (const [who, headers] of callers)
          for (const path of [...Reads, "/protocols/lendwell/questions", "/protocols/lendwell/history"]) {
            const first = yield* get(baseUrl, path, headers)
            assert.isFalse(access.last().lane, `${who} ${path}: the first answer is the router's`)
            const second = yield* get(baseUrl, path, headers)
            assert.deepStrictEqual(comparable(second), comparable(first), `${who} ${path}`)
            // A refusal (403 below the route's tier) is never cached, so never in the lane.
            assert.strictEqual(access.last().lane, first.status === 200, `${who} ${path}: lane`)
            // (That its answers are counted: "the lane of cache hits and the rate limit" below.)
          }
      }),
    120_000
  )

  it.live(
    "the lane's answers carry X-Content-Type-Options: nosniff as the router's do, and its 304 keeps the 200's Cache-Control",
    () =>
      Effect.gen(function* () {
        const { baseUrl, access } = yield* laneServer()
        const path = "/protocols/lendwell"
        const byRouter = yield* get(baseUrl, path)
        assert.isFalse(access.last().lane)
        assert.strictEqual(byRouter.headers["x-content-type-options"], "nosniff")
        const byLane = yield* get(baseUrl, path)
        assert.isTrue(access.last().lane)
        assert.strictEqual(byLane.status, 200)
        assert.match(byLane.headers["content-type"]!, /^application\/json/)
        assert.strictEqual(byLane.headers["x-content-type-options"], "nosniff")
        assert.strictEqual(byLane.headers["cache-control"], "public, max-age=60")
        const notModified = yield* get(baseUrl, path, { "if-none-match": byLane.headers.etag! })
        assert.isTrue(access.last().lane)
        assert.strictEqual(notModified.status, 304)
        assert.strictEqual(notModified.headers["x-content-type-options"], "nosniff")
        assert.strictEqual(
          notModified.headers["cache-control"],
          "public, max-age=60",
          "a 304 is not an error"
        )
      })
  )

  it.live("a 304 from the lane is the router's 304, and HEAD is always the router's", () =>
    Effect.gen(function* () {
      const { baseUrl, access } = yield* laneServer()
      const path = "/protocols/lendwell/scorecards"
      const full = yield* get(baseUrl, path)
      const etag = { "if-none-match": full.headers.etag! }
      const byRouter = yield* get(baseUrl, `${path}?limit=20`, etag)
      assert.isFalse(access.last().lane)
      yield* get(baseUrl, path)
      const byLane = yield* get(baseUrl, path, etag)
      assert.isTrue(access.last().lane)
      assert.strictEqual(byLane.status, 304)
      assert.strictEqual(byLane.body, "")
      assert.strictEqual(byLane.headers.etag, full.headers.etag)
      assert.isUndefined(byLane.headers["content-length"])
      assert.deepStrictEqual(Object.keys(byLane.headers).sort(), Object.keys(byRouter.headers).sort())
      const head = yield* get(baseUrl, path, {}, "HEAD")
      assert.isFalse(access.last().lane)
      assert.strictEqual(head.headers.etag, full.headers.etag)
    })
  )

  it.live(
    "a publish that returned is seen by the next read, though the lane held the figures before it",
    () =>
      Effect.gen(function* () {
        const { a, baseUrl, access, cache } = yield* laneServer()
        const path = "/protocols/lendwell/scorecards"
        yield* get(baseUrl, path)
        const before = yield* get(baseUrl, path)
        assert.isTrue(access.last().lane)
        const applied = yield* cache.applied
        const publisher = yield* Effect.provideContext(Effect.service(Publisher), a)
        const published = yield* publisher.publish({
          entity_type: "protocol",
          slug: "lendwell",
          reasoning: "re-rated",
          actor: "test"
        })
        const after = yield* get(baseUrl, path)
        assert.notStrictEqual(after.body, before.body)
        assert.strictEqual(JSON.parse(after.body).items[0].scorecard_version, 3)
        // Once the publish's notification has dropped lendwell's entries (the read above may
        // have stored the new figures before it came), the new figures are learned again: the
        // next read computes and stores them, the one after is the lane's.
        let change = yield* PubSub.take(applied)
        while (change.entity_id !== published.scorecard.entity_id) change = yield* PubSub.take(applied)
        assert.strictEqual((yield* get(baseUrl, path)).body, after.body)
        assert.strictEqual((yield* get(baseUrl, path)).body, after.body)
        assert.isTrue(access.last().lane)
      })
  )

  it.live("a revoked key is refused on its next request, though the lane answered it just before", () =>
    Effect.gen(function* () {
      const { a, baseUrl, access } = yield* laneServer()
      const { id, bearer } = yield* createKey(a, "enterprise")
      yield* get(baseUrl, "/protocols/lendwell", bearer)
      assert.strictEqual((yield* get(baseUrl, "/protocols/lendwell", bearer)).status, 200)
      assert.isTrue(access.last().lane)
      const keys = yield* Effect.provideContext(Effect.service(ApiKeyRepository), a)
      assert.isTrue(yield* Effect.orDie(keys.revoke(id, new Date().toISOString())))
      const refused = yield* get(baseUrl, "/protocols/lendwell", bearer)
      assert.strictEqual(refused.status, 401)
      assert.strictEqual(JSON.parse(refused.body).detail.error, "invalid_key")
    })
  )

  it.live(
    "a tier never gets an answer learned for another: the same target as Free after Pro, anonymous after Free",
    () =>
      Effect.gen(function* () {
        const { a, baseUrl, access } = yield* laneServer()
        const pro = (yield* createKey(a, "pro")).bearer
        const free = (yield* createKey(a, "free")).bearer
        const path = "/protocols/lendwell/scorecards"
        yield* get(baseUrl, path, pro)
        const proBody = JSON.parse((yield* get(baseUrl, path, pro)).body)
        assert.isTrue(access.last().lane)
        const freeAnswer = yield* get(baseUrl, path, free)
        assert.isFalse(access.last().lane, "Free has not been learned for this target")
        assert.isAbove(proBody.items.length, JSON.parse(freeAnswer.body).items.length, "Pro sees the history")
        assert.strictEqual((yield* get(baseUrl, path, free)).headers["cache-control"], "private, max-age=60")
        assert.isTrue(access.last().lane)
        const anonymous = yield* get(baseUrl, path)
        assert.isFalse(access.last().lane, "anonymous has not been learned for this target")
        assert.strictEqual(anonymous.headers["cache-control"], "public, max-age=60")
      })
  )
})

const ThreeAMinute = [{ limit: 3, window: "1 minute" }] as const
const Limits: Partial<RateLimitTable> = { anonymous: ThreeAMinute }

describe("the lane of cache hits and the rate limit", () => {
  it.live("its answers are counted, and the request past the limit gets the router's 429", () =>
    Effect.gen(function* () {
      const { baseUrl, access } = yield* laneServer({ policies: { limits: Limits } })
      const path = "/protocols/lendwell"
      const remaining: Array<string | undefined> = []
      for (let i = 0; i < 3; i++) remaining.push((yield* get(baseUrl, path)).headers["ratelimit-remaining"])
      assert.deepStrictEqual(remaining, ["2", "1", "0"])
      assert.deepStrictEqual(
        access.lines.map((l) => l.lane),
        [false, true, true]
      )
      const refusedInLane = yield* get(baseUrl, path)
      const refusedByRouter = yield* get(baseUrl, "/protocols/lendwell/scorecards")
      assert.strictEqual(refusedInLane.status, 429)
      assert.deepStrictEqual(comparable(refusedInLane), comparable(refusedByRouter))
      assert.isDefined(refusedInLane.headers["retry-after"])
      assert.isFalse(access.last().lane, "a refusal is answered by the router")
    })
  )

  it.live(
    "a key the lane knows is refused with 429 once its address's failed credentials used the allowance",
    () =>
      Effect.gen(function* () {
        const { a, baseUrl } = yield* laneServer({ policies: { limits: Limits } })
        const { bearer } = yield* createKey(a, "pro")
        yield* get(baseUrl, "/protocols/lendwell", bearer)
        assert.strictEqual((yield* get(baseUrl, "/protocols/lendwell", bearer)).status, 200)
        const made_up = { authorization: `Bearer ${generateApiKey()}` }
        const failures: Array<number> = []
        for (let i = 0; i < 4; i++) failures.push((yield* get(baseUrl, "/protocols", made_up)).status)
        assert.deepStrictEqual(failures, [401, 401, 401, 429])
        assert.strictEqual((yield* get(baseUrl, "/protocols/lendwell", bearer)).status, 429)
      })
  )
})

describe("the lane of cache hits and POSTs", () => {
  it.live(
    "a coverage request (POST /contacts) is always the router's: never answered by the lane or from the cache, its repeat a 201 with a receipt of its own, its 429 the router's",
    () =>
      Effect.gen(function* () {
        const { baseUrl, access } = yield* laneServer({
          policies: { contacts: [{ limit: 3, window: "1 hour" }] }
        })
        const post = (body: unknown) =>
          Effect.promise(async () => {
            const response = await fetch(`${baseUrl}/api/v1/contacts`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify(body)
            })
            return {
              status: response.status,
              body: await response.text(),
              cache: response.headers.get("cache-control")
            }
          })
        const sent = { protocol_name: "Lane Check", contact_email: "lane.check@example.com" }
        const first = yield* post(sent)
        const repeat = yield* post(sent)
        const other = yield* post({ ...sent, protocol_name: "Lane Check Two" })
        const refused = yield* post(sent)
        assert.deepStrictEqual(
          [first.status, repeat.status, other.status, refused.status],
          [201, 201, 201, 429]
        )
        assert.notStrictEqual(JSON.parse(repeat.body).id, JSON.parse(first.body).id)
        assert.notStrictEqual(JSON.parse(other.body).id, JSON.parse(first.body).id)
        assert.deepStrictEqual(
          [first.cache, repeat.cache, other.cache, refused.cache],
          ["no-store", "no-store", "no-store", "no-store"]
        )
        const posts = access.lines.filter((l) => l.path.startsWith("/api/v1/contacts"))
        assert.deepStrictEqual(
          posts.map((l) => [l.status, l.lane]),
          [
            [201, false],
            [201, false],
            [201, false],
            [429, false]
          ]
        )
      })
  )
})

describe("the lane of cache hits and observability", () => {
  it.live(
    "with metrics on, the lane stays on and its answers appear in the same request counts and cache-hit figures",
    () =>
      Effect.gen(function* () {
        const token = "lane-metrics-token"
        const { baseUrl, access } = yield* laneServer({ metrics: { token: Redacted.make(token) } })
        const path = "/protocols/lendwell"
        for (let i = 0; i < 3; i++) yield* get(baseUrl, path)
        assert.deepStrictEqual(
          access.lines.map((l) => l.lane),
          [false, true, true],
          "the first read is the router's, the next two the lane's"
        )
        const scrape = yield* Effect.promise(() =>
          fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.text())
        )
        const sample = (name: string, labels: string) =>
          Number(
            scrape
              .split("\n")
              .find((line) => line.startsWith(name) && labels.split(",").every((l) => line.includes(l)))
              ?.split(" ")
              .at(-1)
          )
        assert.strictEqual(
          sample("http_requests_total", 'route="/api/v1/protocols/:identifier",method="GET",status="200"'),
          3,
          "router and lane answers counted in one series"
        )
        assert.strictEqual(
          sample("http_request_duration_seconds_count", 'route="/api/v1/protocols/:identifier",status="200"'),
          3
        )
        assert.isAtLeast(
          sample("ratings_response_cache_hits_total", ""),
          2,
          "the lane's answers are cache hits"
        )
      })
  )
})
