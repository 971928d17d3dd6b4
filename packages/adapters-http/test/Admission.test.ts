/**
 * The admission step (server/admission/Admission.ts), the one both entrances
 * use: each credential form and what it gives (anonymous, a key's tier, an
 * admin, 401, 429, 503), the order of its checks and what each counts, decided
 * identically at once (the memory store, a key held) and through the effect
 * (Effect's limiter, a key looked up); a revoked key refused on the first
 * request after the revocation; the failed-credential allowance; the client
 * address behind trusted proxies; routes that count no request rate.
 */
import { assert, describe, it } from "@effect/vitest"
import type { RateLimitTable } from "@ratings/domain/access/RequestLimits"
import { Caller, type KeyTier } from "@ratings/domain/model/Caller"
import { ApiKeyRepository } from "@ratings/domain/ports/ApiKeyRepository"
import { ApiKeyRepositoryMemory } from "@ratings/domain/ports/memory/ApiKeyRepositoryMemory"
import { Effect, Layer } from "effect"
import { RateLimiter } from "effect/persistence"
import * as fc from "fast-check"
import { StoreError } from "@ratings/domain/ports/StoreError"
import { Admission, type AdmissionFacts, type Decision } from "../src/server/admission/Admission.ts"
import * as Step from "../src/server/admission/Step.ts"
import { InvalidKeyError, InvalidTokenError } from "../src/api/Authentication.ts"
import { RateLimitedError, ServiceUnavailableError } from "../src/api/Errors.ts"
import { issueApiKey } from "../src/server/ApiKeyCrypto.ts"
import type { JwtVerdict, JwtVerifier } from "../src/server/JwtVerifier.ts"
import { KeyMemo } from "../src/server/KeyMemo.ts"
import {
  type Allowance,
  MemoryStore,
  type RateLimitConfig,
  RequestRateLimiter
} from "../src/server/limits/RateLimit.ts"
import { failingLimiter } from "./FakeStores.ts"

/** A JWT verifier whose verdict the token names (JwtVerifier.test.ts holds the real one's rules). */
const Verdicts: Record<string, JwtVerdict> = {
  "eyJ.admin": { _tag: "Admin", subject: "ops@example", role: "admin" },
  "eyJ.user": { _tag: "NotAdmin" },
  "eyJ.forged": { _tag: "Invalid", reason: "signature verification failed" },
  "eyJ.down": { _tag: "Unavailable", reason: "the key set could not be fetched" }
}
const jwt: JwtVerifier = {
  verify: (token) => Effect.succeed(Verdicts[token] ?? { _tag: "Invalid", reason: "unknown test token" })
}

const ThreeAMinute = [{ limit: 3, window: "1 minute" }] as const
const limits: Partial<RateLimitTable> = { anonymous: ThreeAMinute, free: ThreeAMinute, pro: ThreeAMinute }

interface WorldOptions {
  /** memory: decided at once where it can be; effect: through Effect's limiter over Effect's memory store. */
  readonly store: "memory" | "effect" | "failing"
  readonly hops?: number
  readonly config?: RateLimitConfig
  /** The key store fails every lookup. */
  readonly keysDown?: boolean
}

/**
 * Admission over keys in memory whose version the test bumps on each
 * revocation (as Postgres does in the revoking statement), the verifier
 * above, and a limiter of `store`; its key lookups counted.
 */
const world = (options: WorldOptions) =>
  Effect.gen(function* () {
    const keys = yield* ApiKeyRepository
    let version = 1
    const versions = () => ({ api_keys: String(version) })
    const lookups = { count: 0 }
    const counted = ApiKeyRepository.of({
      ...keys,
      findActiveByHash: (hash) =>
        Effect.suspend(() => {
          lookups.count++
          return options.keysDown === true
            ? Effect.fail(new StoreError({ message: "connection refused" }))
            : keys.findActiveByHash(hash)
        })
    })
    const memo = KeyMemo.make(counted, Effect.sync(versions))
    const config = options.config ?? { limits }
    const limiter =
      options.store === "memory"
        ? yield* RequestRateLimiter.makeMemory(config).pipe(Effect.provide(MemoryStore.layer))
        : yield* RequestRateLimiter.make(config).pipe(
            Effect.provide(
              options.store === "failing"
                ? failingLimiter
                : RateLimiter.layer.pipe(Layer.provide(RateLimiter.layerStoreMemory))
            )
          )
    const admission = Admission.make({ memo, jwt, hops: options.hops ?? 0, limiter })
    /** Keys created in this world, or the same records in another's. */
    const create = (record: ReturnType<typeof issueApiKey>["record"]) => Effect.orDie(keys.create(record))
    const revoke = (id: string) =>
      Effect.map(Effect.orDie(keys.revoke(id, new Date().toISOString())), () => {
        version++
      })
    const admit = (facts: AdmissionFacts, drawn = true) => admission.admit(facts, versions(), drawn)
    return { admission, admit, create, revoke, versions, lookups }
  }).pipe(Effect.provide(ApiKeyRepositoryMemory.layer))

const from = (remoteAddress: string, authorization?: string, forwardedFor?: string): AdmissionFacts => ({
  authorization,
  remoteAddress,
  forwardedFor
})

/** An error's class, by name. */
const nameOf = (e: unknown): string =>
  e instanceof InvalidKeyError
    ? "InvalidKeyError"
    : e instanceof InvalidTokenError
      ? "InvalidTokenError"
      : e instanceof RateLimitedError
        ? "RateLimitedError"
        : e instanceof ServiceUnavailableError
          ? "ServiceUnavailableError"
          : String(e)

const saidAllowance = (a: Allowance | undefined) =>
  a === undefined
    ? "not drawn"
    : a._tag === "Allowed"
      ? { allowed: a.headers }
      : { denied: JSON.stringify(a.error), headers: a.headers, kind: a.kind }

/** A decision, comparable across worlds. */
const said = (d: Decision) =>
  d._tag === "Admitted"
    ? { admitted: d.caller, address: d.address, versions: d.versions, draw: saidAllowance(d.draw) }
    : {
        refused: `${nameOf(d.error)} ${JSON.stringify(d.error.detail)}`,
        headers: d.headers,
        reason: d.reason
      }

const decide = (step: Step.Step<Decision>) => Effect.map(Step.toEffect(step), said)

/** A step that must be decided at once: its value. */
const atOnce = <A>(step: Step.Step<A>, what: string): A => {
  assert.isTrue(Step.isPlain(step), `${what}: decided at once`)
  return step as A
}

const status = (d: Decision): number | string => {
  if (d._tag === "Admitted") return d.draw?._tag === "Denied" ? `draw ${nameOf(d.draw.error)}` : 200
  return d.error instanceof RateLimitedError ? 429 : d.error instanceof ServiceUnavailableError ? 503 : 401
}

const newKey = (tier: KeyTier) => issueApiKey({ name: `admission ${tier}`, tier })

describe("admission: one decision for both entrances", () => {
  it.effect(
    "every credential form, caller kind, revoked key, failed-credential state and proxy setting is decided identically at once and through the effect",
    () =>
      Effect.gen(function* () {
        for (const hops of [0, 1]) {
          const memory = yield* world({ store: "memory", hops })
          const effect = yield* world({ store: "effect", hops })
          const issued = (["free", "pro", "enterprise"] as const).map(newKey)
          const revoked = newKey("pro")
          for (const w of [memory, effect]) for (const k of [...issued, revoked]) yield* w.create(k.record)
          const credentials = [
            undefined,
            "",
            "Basic dXNlcjpwYXNz",
            "Bearer",
            "Bearer a b",
            "Bearer rk_short",
            `Bearer ${newKey("free").key}`,
            ...issued.map((k) => `Bearer ${k.key}`),
            `Bearer ${revoked.key}`,
            ...Object.keys(Verdicts).map((token) => `Bearer ${token}`)
          ]
          const requests = fc.sample(
            fc.record({
              authorization: fc.constantFrom(...credentials),
              remoteAddress: fc.constantFrom("203.0.113.1", "203.0.113.2", "2001:db8::1", "2001:db8::2"),
              forwardedFor: fc.constantFrom(undefined, "198.51.100.7", "10.0.0.1, 198.51.100.8", "not-an-ip"),
              drawn: fc.boolean()
            }),
            { seed: 4242 + hops, numRuns: 160 }
          )
          const decisions: Array<ReturnType<typeof said>> = []
          for (const [i, { drawn, ...facts }] of requests.entries()) {
            if (i === 80) for (const w of [memory, effect]) yield* w.revoke(revoked.record.id)
            const a = yield* decide(memory.admit(facts, drawn))
            const b = yield* decide(effect.admit(facts, drawn))
            assert.deepStrictEqual(a, b, `request ${i}: ${JSON.stringify(facts)} drawn ${drawn}`)
            decisions.push(a)
          }
          const outcomes = new Set(
            decisions.map((d) => ("refused" in d ? d.refused.split(" ")[0] : "admitted"))
          )
          for (const outcome of [
            "admitted",
            "InvalidKeyError",
            "InvalidTokenError",
            "RateLimitedError",
            "ServiceUnavailableError"
          ])
            assert.isTrue(outcomes.has(outcome), `the sample reaches ${outcome}: ${[...outcomes].join(", ")}`)
        }
      })
  )

  it.effect(
    "on the memory store no credential, a malformed one and a key held are decided at once; a key looked up and a JWT wait",
    () =>
      Effect.gen(function* () {
        const w = yield* world({ store: "memory" })
        const { key, record } = newKey("pro")
        yield* w.create(record)
        const bearer = `Bearer ${key}`
        assert.strictEqual(status(atOnce(w.admit(from("203.0.113.1")), "no credential")), 200)
        assert.strictEqual(status(atOnce(w.admit(from("203.0.113.1", "Basic x")), "malformed header")), 401)
        assert.strictEqual(status(atOnce(w.admit(from("203.0.113.1", "Bearer rk_x")), "malformed key")), 401)
        const first = w.admit(from("203.0.113.1", bearer))
        assert.isFalse(Step.isPlain(first), "a key not held yet is looked up")
        assert.strictEqual(status(yield* Step.toEffect(first)), 200)
        const held = atOnce(w.admit(from("203.0.113.1", bearer)), "a key held under the keys' version")
        assert.deepStrictEqual(said(held).admitted, Caller.apiKey("pro", record.account_id, record.id))
        assert.strictEqual(w.lookups.count, 1, "looked up once")
        assert.isFalse(Step.isPlain(w.admit(from("203.0.113.1", "Bearer eyJ.admin"))), "a JWT is verified")
      })
  )

  it.effect("a revoked key is refused on the first request after the revocation, though it was held", () =>
    Effect.gen(function* () {
      const w = yield* world({ store: "memory" })
      const { key, record } = newKey("enterprise")
      yield* w.create(record)
      const request = from("203.0.113.5", `Bearer ${key}`)
      assert.strictEqual(status(yield* Step.toEffect(w.admit(request))), 200)
      assert.strictEqual(status(atOnce(w.admit(request), "held")), 200)
      yield* w.revoke(record.id)
      const refused = yield* Step.toEffect(w.admit(request))
      assert.deepStrictEqual(said(refused), {
        refused: `InvalidKeyError ${JSON.stringify({ error: "invalid_key" })}`,
        headers: {
          "ratelimit-limit": "3",
          "ratelimit-remaining": "2",
          "ratelimit-reset": "20",
          "ratelimit-policy": "3;w=60"
        },
        reason: "unknown or revoked key"
      })
    })
  )

  it.effect(
    "a failed credential is counted like an anonymous request of its address, and past the allowance a credential is refused with 429 before any lookup",
    () =>
      Effect.gen(function* () {
        const w = yield* world({ store: "memory" })
        const valid = newKey("free")
        yield* w.create(valid.record)
        const unknown = () => from("203.0.113.9", `Bearer ${newKey("free").key}`)
        const failures: Array<Decision> = []
        for (let i = 0; i < 3; i++) failures.push(yield* Step.toEffect(w.admit(unknown())))
        assert.deepStrictEqual(failures.map(status), [401, 401, 401])
        assert.deepStrictEqual(
          failures.map((d) => d._tag === "Refused" && d.headers["ratelimit-remaining"]),
          ["2", "1", "0"],
          "each 401 says what is left of the address's anonymous allowance"
        )
        assert.strictEqual(w.lookups.count, 3)
        const spent = atOnce(w.admit(unknown()), "a refusal past the allowance")
        assert.strictEqual(status(spent), 429)
        assert.strictEqual(
          spent._tag === "Refused" && spent.reason,
          undefined,
          "a limit's refusal is not logged"
        )
        assert.strictEqual(status(atOnce(w.admit(from("203.0.113.9", `Bearer ${valid.key}`)), "")), 429)
        assert.strictEqual(
          status(yield* Step.toEffect(w.admit(from("203.0.113.9", "Bearer eyJ.admin")))),
          429
        )
        assert.strictEqual(w.lookups.count, 3, "no lookup once the address is limited")
        assert.strictEqual(
          status(atOnce(w.admit(from("203.0.113.9")), "anonymous")),
          "draw RateLimitedError",
          "its anonymous requests share the allowance"
        )
        assert.strictEqual(
          status(yield* Step.toEffect(w.admit(from("203.0.113.10", `Bearer ${valid.key}`)))),
          200,
          "another address is not limited"
        )
      })
  )

  it.effect("a valid key or admin token costs its address nothing", () =>
    Effect.gen(function* () {
      const w = yield* world({ store: "memory" })
      const valid = newKey("pro")
      yield* w.create(valid.record)
      for (let i = 0; i < 3; i++) {
        yield* Step.toEffect(w.admit(from("203.0.113.20", `Bearer ${valid.key}`)))
        yield* Step.toEffect(w.admit(from("203.0.113.20", "Bearer eyJ.admin")))
      }
      const anonymous = atOnce(w.admit(from("203.0.113.20")), "anonymous")
      assert.strictEqual(anonymous._tag === "Admitted" && anonymous.draw?.headers["ratelimit-remaining"], "2")
    })
  )

  it.effect(
    "a JWT: an admin's gives the admin caller, anyone else's is anonymous, a forged one is 401 invalid_token, an unreachable key set is 503 and counts nothing",
    () =>
      Effect.gen(function* () {
        const w = yield* world({ store: "memory" })
        const at = (token: string) => Step.toEffect(w.admit(from("203.0.113.30", `Bearer ${token}`)))
        const admin = yield* at("eyJ.admin")
        assert.deepStrictEqual(said(admin).admitted, Caller.admin("ops@example", "admin"))
        assert.strictEqual(said(admin).versions, undefined, "an admin's reads are never cached")
        const user = yield* at("eyJ.user")
        assert.deepStrictEqual(said(user).admitted, Caller.anonymous("203.0.113.30"))
        assert.deepStrictEqual(
          said(user).versions,
          w.versions(),
          "an anonymous caller's reads use the versions read"
        )
        const forged = yield* at("eyJ.forged")
        assert.strictEqual(status(forged), 401)
        assert.strictEqual(forged._tag === "Refused" && forged.reason, "signature verification failed")
        const down = yield* at("eyJ.down")
        assert.deepStrictEqual(said(down), {
          refused: `ServiceUnavailableError ${JSON.stringify("service unavailable")}`,
          headers: {},
          reason: "the key set could not be fetched"
        })
        const anonymous = atOnce(w.admit(from("203.0.113.30")), "anonymous")
        assert.strictEqual(
          anonymous._tag === "Admitted" && anonymous.draw?.headers["ratelimit-remaining"],
          "0",
          "the anonymous JWT drew one request, the forged one was counted, the 503 nothing"
        )
      })
  )

  it.effect(
    "behind trusted proxies the client is the entry the outermost trusted proxy appended; otherwise the socket's address",
    () =>
      Effect.gen(function* () {
        const forwarded = from("10.0.0.5", undefined, "198.51.100.1, 203.0.113.7")
        for (const [hops, address] of [
          [0, "10.0.0.5"],
          [1, "203.0.113.7"],
          [2, "198.51.100.1"]
        ] as const) {
          const w = yield* world({ store: "memory", hops })
          assert.deepStrictEqual(
            said(atOnce(w.admit(forwarded), `${hops} hops`)).admitted,
            Caller.anonymous(address)
          )
        }
        const w = yield* world({ store: "memory", hops: 1 })
        assert.strictEqual(
          said(atOnce(w.admit(from("10.0.0.5", undefined, "not-an-ip")), "")).address,
          "10.0.0.5"
        )
        assert.strictEqual(
          said(
            atOnce(
              w.admit({ authorization: undefined, remoteAddress: undefined, forwardedFor: undefined }),
              ""
            )
          ).address,
          "unknown"
        )
      })
  )

  it.effect(
    "a request no request rate counts (/health, /metrics) draws nothing; a failed credential still counts",
    () =>
      Effect.gen(function* () {
        const w = yield* world({ store: "memory" })
        const health = atOnce(w.admit(from("203.0.113.40"), false), "undrawn")
        assert.strictEqual(said(health).draw, "not drawn")
        assert.strictEqual(status(atOnce(w.admit(from("203.0.113.40", "Basic x"), false), "malformed")), 401)
        const drawn = atOnce(w.admit(from("203.0.113.40")), "drawn")
        assert.strictEqual(
          drawn._tag === "Admitted" && drawn.draw?.headers["ratelimit-remaining"],
          "1",
          "only the failed credential was counted before"
        )
      })
  )

  it.effect(
    "without versions read for the request, a key is looked up under the versions the memo reads, and those are the request's",
    () =>
      Effect.gen(function* () {
        const w = yield* world({ store: "memory" })
        const { key, record } = newKey("free")
        yield* w.create(record)
        const decision = yield* Step.toEffect(
          w.admission.admit(from("203.0.113.50", `Bearer ${key}`), undefined)
        )
        assert.deepStrictEqual(said(decision).versions, w.versions())
        const anonymous = atOnce(w.admission.admit(from("203.0.113.50"), undefined), "anonymous")
        assert.strictEqual(said(anonymous).versions, undefined, "an anonymous request reads none here")
      })
  )

  it.effect("the key store failing is a 503, counting nothing on the address", () =>
    Effect.gen(function* () {
      const w = yield* world({ store: "memory", keysDown: true })
      const down = yield* Step.toEffect(w.admit(from("203.0.113.60", `Bearer ${newKey("free").key}`)))
      assert.strictEqual(status(down), 503)
      assert.strictEqual(down._tag === "Refused" && down.reason, undefined, "logged by the key memo")
      const anonymous = atOnce(w.admit(from("203.0.113.60")), "anonymous")
      assert.strictEqual(anonymous._tag === "Admitted" && anonymous.draw?.headers["ratelimit-remaining"], "2")
    })
  )

  it.effect(
    "a shared store that cannot be reached: each limit by its policy, failed credentials closed here (503, no-store), the request rate open (served without headers)",
    () =>
      Effect.gen(function* () {
        const w = yield* world({
          store: "failing",
          config: { limits, onStoreFailure: { failedCredentials: "closed" } }
        })
        const keyed = yield* Step.toEffect(w.admit(from("203.0.113.70", `Bearer ${newKey("free").key}`)))
        assert.deepStrictEqual(said(keyed), {
          refused: `ServiceUnavailableError ${JSON.stringify("service unavailable")}`,
          headers: { "retry-after": "5", "cache-control": "no-store" },
          reason: undefined
        })
        assert.strictEqual(w.lookups.count, 0, "no credential is checked while its allowance cannot be read")
        const anonymous = yield* Step.toEffect(w.admit(from("203.0.113.70")))
        assert.deepStrictEqual(said(anonymous).draw, { allowed: {} })
      })
  )
})
