/**
 * The two entrances of a GET decide identically: the lane of cache hits
 * (HitLane.ts, in front of the router) and the router itself
 * (authentication, caller policies, rate limit). Generated sequences of
 * requests (every credential form, client addresses through X-Forwarded-For
 * under each trusted-proxy setting, cached and uncached targets,
 * If-None-Match, a key revoked midway, small limits that sequences exhaust,
 * a shared rate-limit store that stops answering) are sent to two servers
 * built identically over the same data, one with the lane and one without,
 * and their answers compared request by request. Black-box: HTTP in and out
 * through `serve`'s public options; the access log tells which entrance
 * answered, so that the lane is seen to answer its share.
 */
import { createPrivateKey, sign } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import type { AccessLog } from "@ratings/adapters-http/server/AccessLog"
import { generateApiKey, issueApiKey } from "@ratings/adapters-http/server/ApiKeyCrypto"
import { DevAudience, DevIssuer } from "@ratings/adapters-http/server/DevIdentityProvider"
import {
  type DevKeyPair,
  generateDevKeyPair,
  mintDevAdminToken
} from "@ratings/adapters-http/server/DevToken"
import type { RateLimitTable, StoreFailurePolicy } from "@ratings/adapters-http/server/limits/RateLimit"
import {
  redisServerInstalled,
  startThrowawayRedis,
  type ThrowawayRedis
} from "@ratings/adapters-http/test/Redis"
import { type KeyTier, KeyTiers } from "@ratings/domain/model/Caller"
import { ApiKeyRepository } from "@ratings/domain/ports/ApiKeyRepository"
import { type Context, Duration, Effect } from "effect"
import fc from "fast-check"
import { responseCache } from "../src/Layers.ts"
import { importedDatabase, type ServeOptions, serverProcess } from "./ServerProcess.ts"

// ------------------------------------------------------------------ requests

/** The Authorization forms a request is sent with (`revocable`: the sequence's own key, revoked midway). */
const CredentialForms = [
  "none",
  "basic",
  "empty-bearer",
  "malformed-key",
  "unknown-key",
  "free",
  "pro",
  "enterprise",
  "lowercase-scheme",
  "revocable",
  "admin-jwt",
  "viewer-jwt",
  "foreign-jwt",
  "garbage-token"
] as const
type CredentialForm = (typeof CredentialForms)[number]

/** The forms the lane may answer (no credential, a key), which every sequence sends, and most. */
const Admissible: ReadonlyArray<CredentialForm> = [
  "none",
  "free",
  "pro",
  "enterprise",
  "lowercase-scheme",
  "revocable"
]
/** The forms only the router answers: every refused credential, and JWTs. */
const RouterOnly = CredentialForms.filter((form) => !Admissible.includes(form))

/** Reads the response cache holds (of the example data): the lane learns them. */
const CachedTargets = [
  "/api/v1/protocols?limit=50",
  "/api/v1/protocols/lendwell",
  "/api/v1/protocols/lendwell/scorecards",
  "/api/v1/protocols/lendwell/history",
  "/api/v1/chains",
  "/api/v1/chains/ethereum",
  "/api/v1/methodology"
] as const
const isCached = (target: string) => (CachedTargets as ReadonlyArray<string>).includes(target)
/** Targets the lane never answers: not cached, a 404, a 422, an account's own list. */
const UncachedTargets = [
  "/api/v1/health",
  "/api/v1/protocols/no-such-protocol",
  "/api/v1/protocols?limit=zero",
  "/api/v1/alert-rules"
] as const

/** Client addresses; the two IPv6 ones share a /64, so a counter. */
const address = fc.constantFrom("203.0.113.7", "198.51.100.23", "2001:db8::1", "2001:db8::2")

/** X-Forwarded-For: absent, one entry, several, garbage. */
const forwardedFor: fc.Arbitrary<string | undefined> = fc.oneof(
  fc.constant(undefined),
  address,
  fc.array(address, { minLength: 2, maxLength: 3 }).map((entries) => entries.join(", ")),
  fc.constantFrom("garbage", "", " , ", "999.1.1.1", "203.0.113.7, nonsense", "unknown,198.51.100.23")
)

interface Request {
  readonly _tag: "Request"
  readonly credential: CredentialForm
  readonly forwardedFor: string | undefined
  readonly target: string
  /** If-None-Match: none, the last ETag seen for the target, or one that matches nothing. */
  readonly conditional: "none" | "last-etag" | "stale-etag"
}
/** A request, the revocation of the sequence's key, or the shared store's outage (it stops answering). */
type Step = Request | { readonly _tag: "Revoke" } | { readonly _tag: "StoreStops" }

/** Where the servers' rate-limit counters live; with Redis, what each limit does while it does not answer. */
type Store =
  | { readonly _tag: "Memory" }
  | {
      readonly _tag: "Redis"
      readonly requests: StoreFailurePolicy
      readonly failedCredentials: StoreFailurePolicy
    }

interface Sequence {
  readonly trustProxy: 0 | 1 | 2
  readonly store: Store
  readonly revocableTier: KeyTier
  readonly steps: ReadonlyArray<Step>
}

const policy = fc.constantFrom<StoreFailurePolicy>("open", "closed")

/** `event` inserted into `steps` after `after` of them; not at all when that is past the end. */
const insertAt = (steps: ReadonlyArray<Step>, after: number, event: Step): ReadonlyArray<Step> =>
  after < steps.length ? [...steps.slice(0, after), event, ...steps.slice(after)] : steps

/**
 * A sequence draws on a few credentials, targets and forwarded headers of
 * its own, so that it repeats them: the lane learns its targets, and its
 * callers reach their limits. With `redis`, some run over a shared store.
 */
const sequenceOf = (redis: boolean): fc.Arbitrary<Sequence> =>
  fc
    .record({
      trustProxy: fc.constantFrom(0 as const, 1 as const, 2 as const),
      store: redis
        ? fc.oneof(
            fc.constant<Store>({ _tag: "Memory" }),
            fc.record({ _tag: fc.constant("Redis" as const), requests: policy, failedCredentials: policy })
          )
        : fc.constant<Store>({ _tag: "Memory" }),
      revocableTier: fc.constantFrom(...KeyTiers),
      credentials: fc
        .tuple(
          fc.uniqueArray(fc.constantFrom(...Admissible), { minLength: 1, maxLength: 3 }),
          fc.uniqueArray(fc.constantFrom(...RouterOnly), { maxLength: 2 })
        )
        .map(([admissible, routerOnly]) => [...admissible, ...routerOnly]),
      targets: fc
        .tuple(
          fc.uniqueArray(fc.constantFrom(...CachedTargets), { minLength: 1, maxLength: 3 }),
          fc.uniqueArray(fc.constantFrom(...UncachedTargets), { maxLength: 1 })
        )
        .map(([cached, uncached]) => [...cached, ...uncached]),
      forwarded: fc.array(forwardedFor, { minLength: 1, maxLength: 3 })
    })
    .chain(({ trustProxy, store, revocableTier, credentials, targets, forwarded }) => {
      const request: fc.Arbitrary<Request> = fc.record({
        _tag: fc.constant("Request" as const),
        credential: fc.oneof(
          ...credentials.map((c) => ({ weight: Admissible.includes(c) ? 4 : 1, arbitrary: fc.constant(c) }))
        ),
        forwardedFor: fc.constantFrom(...forwarded),
        target: fc.constantFrom(...targets),
        conditional: fc.constantFrom(
          "none" as const,
          "none" as const,
          "last-etag" as const,
          "stale-etag" as const
        )
      })
      return fc
        .tuple(
          fc.array(request, { minLength: 10, maxLength: 30 }),
          fc.nat({ max: 45 }),
          fc.integer({ min: 5, max: 45 })
        )
        .map(([requests, revokeAfter, stopAfter]): Sequence => {
          const revoking = insertAt(requests, revokeAfter, { _tag: "Revoke" })
          const steps =
            store._tag === "Redis" ? insertAt(revoking, stopAfter, { _tag: "StoreStops" }) : revoking
          return { trustProxy, store, revocableTier, steps }
        })
    })

/** Small limits, in windows far longer than a run, so that sequences exhaust them and nothing expires. */
const Limits: Partial<RateLimitTable> = {
  anonymous: [
    { limit: 10, window: "1 hour" },
    { limit: 60, window: "1 day" }
  ],
  free: [{ limit: 5, window: "1 hour" }],
  pro: [{ limit: 8, window: "1 hour" }],
  enterprise: [{ limit: 12, window: "1 hour" }],
  admin: [{ limit: 5, window: "1 hour" }]
}

const ask = (
  credential: CredentialForm,
  target: string,
  forwarded: string,
  conditional: Request["conditional"] = "none"
): Step => ({ _tag: "Request", credential, forwardedFor: forwarded, target, conditional })

/**
 * A sequence that reaches every credential form, a 304 and both refusals,
 * run first whatever is generated: a key revoked after the lane answered
 * it; every kind of caller learned on one target; a Free key past its
 * limit; an address whose failed credentials use its anonymous allowance,
 * after which its Pro key and its anonymous reads are refused too.
 */
const Exhausting: Sequence = (() => {
  const [list, detail] = ["/api/v1/protocols?limit=50", "/api/v1/protocols/lendwell"]
  const failing = [
    "basic",
    "empty-bearer",
    "malformed-key",
    "unknown-key",
    "foreign-jwt",
    "garbage-token"
  ] as const
  return {
    trustProxy: 1,
    store: { _tag: "Memory" },
    revocableTier: "pro",
    steps: [
      ask("revocable", detail, "198.51.100.23"),
      ask("revocable", detail, "198.51.100.23"),
      { _tag: "Revoke" },
      ask("revocable", detail, "198.51.100.23"),
      ...(["free", "pro", "enterprise", "lowercase-scheme", "admin-jwt", "viewer-jwt"] as const).flatMap(
        (c) => [ask(c, list, "2001:db8::1"), ask(c, list, "2001:db8::1")]
      ),
      ...Array.from({ length: 4 }, () => ask("free", list, "2001:db8::2")),
      ask("pro", detail, "203.0.113.7"),
      ask("pro", detail, "203.0.113.7"),
      ask("pro", detail, "203.0.113.7", "last-etag"),
      ask("none", detail, "203.0.113.7"),
      ask("none", detail, "203.0.113.7"),
      ...failing.flatMap((c) => [ask(c, list, "203.0.113.7"), ask(c, detail, "203.0.113.7")]),
      ask("pro", detail, "203.0.113.7"),
      ask("none", detail, "203.0.113.7")
    ]
  }
})()

/** Over Redis, failing closed: the store stops answering after the lane has learned a read. */
const StoreStopping: Sequence = {
  trustProxy: 2,
  store: { _tag: "Redis", requests: "closed", failedCredentials: "closed" },
  revocableTier: "free",
  steps: [
    ...(["none", "enterprise"] as const).flatMap((c) => [
      ask(c, "/api/v1/chains", "198.51.100.23, 10.0.0.1"),
      ask(c, "/api/v1/chains", "198.51.100.23, 10.0.0.1")
    ]),
    { _tag: "StoreStops" },
    ask("none", "/api/v1/chains", "198.51.100.23, 10.0.0.1"),
    ask("enterprise", "/api/v1/chains", "198.51.100.23, 10.0.0.1"),
    ask("unknown-key", "/api/v1/chains", "198.51.100.23, 10.0.0.1")
  ]
}

// ------------------------------------------------------------------ answers

interface Answer {
  readonly status: number
  readonly body: string
  readonly headers: Record<string, string>
}

const send = (baseUrl: string, target: string, headers: Record<string, string>) =>
  Effect.promise(async (): Promise<Answer> => {
    const response = await fetch(`${baseUrl}${target}`, { headers })
    const body = await response.text()
    const received = Object.fromEntries(response.headers)
    delete received.date
    return { status: response.status, body, headers: received }
  })

/** Headers that count seconds from the request's own instant: equal within a second. */
const Seconds = ["ratelimit-reset", "retry-after"] as const
const RetryAfterField = /"retry_after":(\d+)/

const withinASecond = (a: string | undefined, b: string | undefined): b is string =>
  a !== undefined && b !== undefined && Math.abs(Number(a) - Number(b)) <= 1

/**
 * `answer` with its counts of seconds (and its body's `retry_after`) set to
 * the reference's where they differ by at most one, its length following.
 */
const aligned = (answer: Answer, reference: Answer): Answer => {
  const headers = { ...answer.headers }
  for (const name of Seconds)
    if (withinASecond(headers[name], reference.headers[name])) headers[name] = reference.headers[name]
  const theirs = RetryAfterField.exec(reference.body)?.[1]
  if (!withinASecond(RetryAfterField.exec(answer.body)?.[1], theirs)) return { ...answer, headers }
  const body = answer.body.replace(RetryAfterField, `"retry_after":${theirs}`)
  if (headers["content-length"] !== undefined) headers["content-length"] = String(Buffer.byteLength(body))
  return { status: answer.status, body, headers }
}

// ------------------------------------------------------------------ callers

/** A JWT signed (ES256) with `pair`'s private key, with the claims as given. */
const signedToken = (pair: DevKeyPair, claims: Record<string, unknown>): string => {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")
  const input = `${part({ alg: "ES256", typ: "JWT" })}.${part(claims)}`
  const signature = sign("sha256", Buffer.from(input), {
    key: createPrivateKey(pair.privateKeyPem),
    dsaEncoding: "ieee-p1363"
  })
  return `${input}.${signature.toString("base64url")}`
}

const createKey = (a: Context.Context<ApiKeyRepository>, tier: KeyTier) =>
  Effect.gen(function* () {
    const { key, record } = issueApiKey({ name: `entrances ${tier}`, tier })
    yield* Effect.orDie((yield* ApiKeyRepository).create(record))
    return { id: record.id, key }
  }).pipe(Effect.provideContext(a))

type Credentials = Readonly<Record<Exclude<CredentialForm, "revocable">, string | undefined>>

/** The Authorization values of every form but the sequence's own key, made once. */
const credentialsOf = (a: Context.Context<ApiKeyRepository>, idp: DevKeyPair) =>
  Effect.gen(function* () {
    const now = Math.floor(Date.now() / 1000)
    const claims = { iss: DevIssuer, aud: DevAudience, sub: "viewer@example", iat: now, exp: now + 3600 }
    const adminToken = (pair: DevKeyPair) =>
      Effect.orDie(
        mintDevAdminToken({
          privateKeyPem: pair.privateKeyPem,
          issuer: DevIssuer,
          audience: DevAudience,
          subject: "ops@example",
          role: "admin",
          ttlSeconds: 3600
        })
      )
    const pro = (yield* createKey(a, "pro")).key
    const credentials: Credentials = {
      none: undefined,
      basic: "Basic eHl6OnNlY3JldA==",
      "empty-bearer": "Bearer ",
      "malformed-key": "Bearer rk_not-a-key",
      "unknown-key": `Bearer ${generateApiKey()}`,
      free: `Bearer ${(yield* createKey(a, "free")).key}`,
      pro: `Bearer ${pro}`,
      enterprise: `Bearer ${(yield* createKey(a, "enterprise")).key}`,
      "lowercase-scheme": `bearer  ${pro}`,
      "admin-jwt": `Bearer ${yield* adminToken(idp)}`,
      "viewer-jwt": `Bearer ${signedToken(idp, { ...claims, role: "viewer" })}`,
      // Signed by a key the server does not trust.
      "foreign-jwt": `Bearer ${yield* adminToken(generateDevKeyPair())}`,
      "garbage-token": "Bearer not.a.token"
    }
    return credentials
  })

// ------------------------------------------------------------------ the run

/** What the whole run saw, so that it can be checked not to be vacuous. */
interface Tally {
  requests: number
  byLane: number
  /** Answers 200 or 304 to the cached targets, and how many of them the lane gave. */
  reads: number
  readsByLane: number
  readonly forms: Set<string>
  readonly statuses: Set<number>
}

interface Run {
  readonly url: string
  readonly a: Context.Context<ApiKeyRepository>
  readonly idp: DevKeyPair
  readonly credentials: Credentials
  readonly redis: ThrowawayRedis | undefined
  readonly tally: Tally
}

/** Which entrance answered each request: `true` for the lane. */
const laneFlags = () => {
  const flags: Array<boolean> = []
  const log: AccessLog = { line: (_method, _url, _status, _started, lane) => flags.push(lane === true) }
  return { flags, log }
}

const headersFor = (run: Run, request: Request, revocable: string, etags: Map<string, string>) => {
  const headers: Record<string, string> = {}
  const authorization = request.credential === "revocable" ? revocable : run.credentials[request.credential]
  if (authorization !== undefined) headers.authorization = authorization
  if (request.forwardedFor !== undefined) headers["x-forwarded-for"] = request.forwardedFor
  const etag = etags.get(request.target)
  if (request.conditional === "last-etag" && etag !== undefined) headers["if-none-match"] = etag
  if (request.conditional === "stale-etag") headers["if-none-match"] = '"stale"'
  return headers
}

/** The options both servers of a sequence are built with (their counters apart, on Redis by prefix). */
const optionsOf = (run: Run, sequence: Sequence, name: string): ServeOptions => {
  const store = sequence.store
  return {
    auth: {
      jwt: { publicKey: run.idp.publicKeyPem, issuer: DevIssuer, audience: DevAudience },
      trustProxy: sequence.trustProxy
    },
    policies:
      store._tag === "Memory" || run.redis === undefined
        ? { limits: Limits }
        : {
            limits: Limits,
            redisUrl: run.redis.url,
            redisKeyPrefix: `entrances:${crypto.randomUUID()}:${name}:`,
            onStoreFailure: { requests: store.requests, failedCredentials: store.failedCredentials }
          },
    shutdownGrace: Duration.millis(200)
  }
}

/** Runs one sequence against a fresh pair of servers; fails on the first answer that differs. */
const runSequence = (run: Run, sequence: Sequence) =>
  Effect.gen(function* () {
    const revocable = yield* createKey(run.a, sequence.revocableTier)
    const laneLog = laneFlags()
    const routerLog = laneFlags()
    // The outage of a stopped store is logged as a warning, on purpose here.
    const logs = sequence.steps.some((step) => step._tag === "StoreStops") ? "Error" : "Warn"
    const withLane = yield* serverProcess(
      run.url,
      responseCache(),
      { ...optionsOf(run, sequence, "lane"), hitLane: true, accessLog: laneLog.log },
      logs
    )
    const withoutLane = yield* serverProcess(
      run.url,
      responseCache(),
      { ...optionsOf(run, sequence, "router"), hitLane: false, accessLog: routerLog.log },
      logs
    )
    // Closed first: the store answers again before the servers close their connections to it.
    yield* Effect.addFinalizer(() => Effect.sync(() => run.redis?.thaw()))
    const keys = yield* Effect.provideContext(Effect.service(ApiKeyRepository), run.a)
    const etags = new Map<string, string>()
    let revoked = false
    for (const [i, step] of sequence.steps.entries()) {
      if (step._tag === "Revoke") {
        yield* Effect.orDie(keys.revoke(revocable.id, new Date().toISOString()))
        revoked = true
        continue
      }
      if (step._tag === "StoreStops") {
        run.redis?.freeze()
        continue
      }
      const headers = headersFor(run, step, `Bearer ${revocable.key}`, etags)
      const byLane = yield* send(withLane.baseUrl, step.target, headers)
      const byRouter = yield* send(withoutLane.baseUrl, step.target, headers)
      if (byRouter.headers.etag !== undefined) etags.set(step.target, byRouter.headers.etag)
      const lane = laneLog.flags[laneLog.flags.length - 1] === true
      run.tally.requests++
      if (lane) run.tally.byLane++
      if ((byLane.status === 200 || byLane.status === 304) && isCached(step.target)) {
        run.tally.reads++
        if (lane) run.tally.readsByLane++
      }
      run.tally.forms.add(step.credential === "revocable" && revoked ? "revoked" : step.credential)
      run.tally.statuses.add(byRouter.status)
      assert.deepStrictEqual(
        aligned(byLane, byRouter),
        byRouter,
        `step ${i}, GET ${step.target} ${JSON.stringify(headers)}: the server with the lane answered otherwise`
      )
    }
    assert.notInclude(routerLog.flags, true, "the server without the lane never answers in it")
  }).pipe(Effect.scoped)

/** A throwaway Redis for the sequences over a shared store, when redis-server is installed. */
const throwawayRedis = redisServerInstalled()
  ? Effect.map(
      Effect.acquireRelease(
        Effect.promise(() => startThrowawayRedis()),
        (redis) => Effect.promise(() => redis.stop())
      ),
      (redis): ThrowawayRedis | undefined => redis
    )
  : Effect.succeed(undefined)

describe("the two entrances of a GET", () => {
  it.live(
    "both entrances decide identically over generated requests: the caller, its admission or refusal, the headers and the body",
    () =>
      Effect.gen(function* () {
        const { url, a } = yield* importedDatabase
        const redis = yield* throwawayRedis
        const idp = generateDevKeyPair()
        const credentials = yield* credentialsOf(a, idp)
        const tally: Tally = {
          requests: 0,
          byLane: 0,
          reads: 0,
          readsByLane: 0,
          forms: new Set(),
          statuses: new Set()
        }
        const run: Run = { url, a, idp, credentials, redis, tally }
        const examples: Array<[Sequence]> =
          redis === undefined ? [[Exhausting]] : [[Exhausting], [StoreStopping]]
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(sequenceOf(redis !== undefined), (s) => Effect.runPromise(runSequence(run, s))),
            { numRuns: 20, examples }
          )
        )
        for (const form of [...CredentialForms.filter((f) => f !== "revocable"), "revoked"])
          assert.isTrue(tally.forms.has(form), `a request was sent with ${form}`)
        for (const status of [200, 304, 401, 429, ...(redis === undefined ? [] : [503])])
          assert.isTrue(tally.statuses.has(status), `a request was answered ${status}`)
        // Typically a quarter to a third of all requests, and three fifths of the served reads of cached
        // targets (a sequence's servers are fresh: each kind of caller's first read of a target is the router's).
        assert.isAbove(tally.byLane / tally.requests, 0.12, "the lane answered a good share of all requests")
        assert.isAbove(
          tally.readsByLane / tally.reads,
          0.4,
          "the lane answered a good share of the served reads of cached targets"
        )
      }),
    // About 10 s on a quiet machine; room for a loaded one.
    120_000
  )
})
