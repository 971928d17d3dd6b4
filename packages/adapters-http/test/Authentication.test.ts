/**
 * Spec part 5 (Authentication) over the real server: anonymous calls, API keys
 * and their tiers, revoked and unknown keys, keys stored hashed, the admin
 * bypass with an identity-provider JWT, client addresses, and secrets kept out
 * of logs and responses. The key rules run on each backend (keys in memory and
 * in Postgres's api_keys); the refusal rules of JWTs and the JWKS URL path are
 * in JwtVerifier.test.ts.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Caller } from "@ratings/domain/model/Caller"
import { ApiKeyRepository } from "@ratings/domain/ports/ApiKeyRepository"
import { Effect, Layer, Logger, Option } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { RatingsApi } from "../src/api/Api.ts"
import { InvalidKeyError, InvalidTokenError } from "../src/api/Authentication.ts"
import { displayPrefix, generateApiKey, hashApiKey } from "../src/server/ApiKeyCrypto.ts"
import { clientAddressOf, credentialOf } from "../src/server/admission/Credential.ts"
import { Callers5 } from "./fixtures.ts"
import { adminClaims, privateKeyOf, sign } from "./Tokens.ts"
import {
  type Backend,
  database,
  onEachBackend,
  type Response,
  type ServerIt,
  TestServer
} from "./TestServer.ts"

// biome-ignore lint/suspicious/noExplicitAny: response bodies are probed field by field in assertions
type Json = { readonly [key: string]: any }

const InvalidKey = { detail: { error: "invalid_key" } }
const InvalidToken = { detail: { error: "invalid_token" } }
const MissingKey = { detail: { error: "missing_key" } }

const slugs = (r: Response): ReadonlyArray<string> => (r.json as Json).items.map((x: Json) => x.slug)
const lastCaller = (server: TestServer["Service"]) => server.callers().at(-1)

const withBearer = (server: TestServer["Service"], path: string, token: string) =>
  server.get(path, { authorization: `Bearer ${token}` })

const apiKeysAndAnonymousCallers = (it: ServerIt) =>
  describe("API keys and anonymous callers (spec part 5)", () => {
    it.effect(
      "public endpoints need no credentials: without a header the caller is anonymous, by address",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const r = yield* server.get("/api/v1/protocols")
          assert.strictEqual(r.status, 200)
          assert.deepStrictEqual(lastCaller(server), Caller.anonymous("127.0.0.1"))
          assert.strictEqual((yield* server.get("/health")).status, 200)
        })
    )

    it.effect(
      "Pro and Enterprise endpoints take Authorization: Bearer <API_KEY>: each key gets its own tier",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const domains = "/api/v1/protocols/protocol-alpha/domains"
          const questions = "/api/v1/protocols/protocol-alpha/questions"
          assert.deepStrictEqual((yield* server.get(domains)).json, MissingKey)
          assert.strictEqual((yield* server.get(domains)).status, 401)
          const free = yield* server.get(domains, { caller: "free" })
          assert.strictEqual(free.status, 403)
          assert.deepStrictEqual(free.json, {
            detail: { error: "insufficient_tier", required_tier: "pro", tier: "free" }
          })
          assert.deepStrictEqual(lastCaller(server), Callers5.free)
          assert.strictEqual((yield* server.get(domains, { caller: "pro" })).status, 200)
          assert.deepStrictEqual(lastCaller(server), Callers5.pro)
          assert.strictEqual((yield* server.get(questions, { caller: "pro" })).status, 403)
          assert.strictEqual((yield* server.get(questions, { caller: "enterprise" })).status, 200)
          assert.deepStrictEqual(lastCaller(server), Callers5.enterprise)
        })
    )

    it.effect("a key created with `keys create` works at once and gives its tier, account and key id", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { key, id } = yield* server.createKey("pro", { account_id: "acct-new" })
        const r = yield* withBearer(server, "/api/v1/chains/chain-alpha/history", key)
        assert.strictEqual(r.status, 200)
        assert.deepStrictEqual(lastCaller(server), Caller.apiKey("pro", "acct-new", id))
      })
    )

    it.effect("a revoked key is refused with 401 invalid_key on every route, public ones included", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { key, id } = yield* server.createKey("enterprise")
        assert.strictEqual((yield* withBearer(server, "/api/v1/protocols", key)).status, 200)
        assert.isTrue(yield* Effect.orDie(server.keys.revoke(id, new Date().toISOString())))
        const before = server.callers().length
        for (const path of ["/api/v1/protocols", "/api/v1/protocols/protocol-alpha/questions", "/health"]) {
          const r = yield* withBearer(server, path, key)
          assert.strictEqual(r.status, 401, path)
          assert.deepStrictEqual(r.json, InvalidKey, path)
        }
        assert.strictEqual(server.callers().length, before, "no handler ran")
      })
    )

    it.effect("an unknown key is refused with 401 invalid_key on every route, public ones included", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        for (const key of [generateApiKey(), "rk_short", `${generateApiKey()}x`]) {
          for (const path of [
            "/api/v1/protocols",
            "/api/v1/tokens/token-alpha/domains",
            "/api/v1/methodology"
          ]) {
            const r = yield* withBearer(server, path, key)
            assert.strictEqual(r.status, 401, `${path} ${key.length}`)
            assert.deepStrictEqual(r.json, InvalidKey)
          }
        }
      })
    )

    it.effect(
      "a 401 for a bad credential carries WWW-Authenticate: Bearer (RFC 6750); missing_key is unchanged",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const r = yield* withBearer(server, "/api/v1/protocols", generateApiKey())
          assert.match(r.headers.get("www-authenticate") ?? "", /^Bearer error="invalid_token"/)
          const missing = yield* server.get("/api/v1/protocols/protocol-alpha/domains")
          assert.deepStrictEqual(missing.json, MissingKey)
        })
    )

    it.effect(
      "an Authorization header that is not `Bearer <token>` is refused, never read as anonymous",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          for (const authorization of ["Basic dXNlcjpwYXNz", "Bearer", "Bearer a b", "Token rk_x"]) {
            const r = yield* server.get("/api/v1/protocols", { authorization })
            assert.strictEqual(r.status, 401, authorization)
            assert.deepStrictEqual(r.json, InvalidToken, authorization)
          }
        })
    )

    it.effect("a bad credential is refused before the parameters are checked: 401, not 422", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const r = yield* withBearer(server, "/api/v1/protocols?limit=999", generateApiKey())
        assert.strictEqual(r.status, 401)
        assert.strictEqual((yield* server.get("/api/v1/protocols?limit=999", { caller: "pro" })).status, 422)
      })
    )

    it.effect(
      "admin bypass: include_inactive with an admin JWT (role admin or super_admin) shows inactive records",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          for (const role of ["admin", "super_admin"] as const) {
            const token = yield* server.adminToken(role, `${role}@example`)
            const listed = yield* withBearer(server, "/api/v1/protocols?include_inactive=true", token)
            assert.include(slugs(listed), "protocol-retired", role)
            assert.deepStrictEqual(lastCaller(server), Caller.admin(`${role}@example`, role))
            const detail = yield* withBearer(
              server,
              "/api/v1/protocols/protocol-retired?include_inactive=true",
              token
            )
            assert.strictEqual(detail.status, 200, role)
          }
          const keyed = yield* server.get("/api/v1/protocols?include_inactive=true", { caller: "enterprise" })
          assert.notInclude(slugs(keyed), "protocol-retired")
        })
    )

    it.effect(
      "for anyone else include_inactive is silently ignored: a valid JWT without an admin role is anonymous",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const key = privateKeyOf(server.idp)
          for (const role of [
            { role: "user" },
            { role: "Admin" },
            { role: undefined, roles: ["viewer"] },
            { role: undefined }
          ]) {
            const token = yield* sign(adminClaims(server.idp, role), key)
            const listed = yield* withBearer(server, "/api/v1/protocols?include_inactive=true", token)
            assert.strictEqual(listed.status, 200, JSON.stringify(role))
            assert.notInclude(slugs(listed), "protocol-retired")
            assert.deepStrictEqual(lastCaller(server), Caller.anonymous("127.0.0.1"))
            const gated = yield* withBearer(server, "/api/v1/protocols/protocol-alpha/domains", token)
            assert.deepStrictEqual(gated.json, MissingKey, "a JWT is not an API key")
          }
        })
    )

    it.effect(
      "the role may come as a `roles` array or under the configured claim; the higher admin role wins",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const key = privateKeyOf(server.idp)
          const cases = [
            [{ role: undefined, roles: ["viewer", "admin"] }, "admin"],
            [{ role: ["admin", "super_admin"] }, "super_admin"],
            [{ role: "admin", roles: ["super_admin"] }, "super_admin"]
          ] as const
          for (const [claims, role] of cases) {
            const token = yield* sign(adminClaims(server.idp, claims), key)
            assert.strictEqual((yield* withBearer(server, "/api/v1/protocols", token)).status, 200)
            assert.deepStrictEqual(lastCaller(server), Caller.admin("ops@example", role))
          }
        })
    )

    it.effect("the typed client decodes invalid_key and invalid_token into the contract's errors", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const clientWith = (authorization: string) =>
          HttpApiClient.make(RatingsApi, {
            baseUrl: server.baseUrl,
            transformClient: HttpClient.mapRequest(
              HttpClientRequest.setHeader("authorization", authorization)
            )
          })
        const badKey = yield* clientWith(`Bearer ${generateApiKey()}`)
        const keyError = yield* Effect.flip(badKey.protocols.list({ query: {} }))
        assert.instanceOf(keyError, InvalidKeyError)
        const badToken = yield* clientWith("Bearer not.a.jwt")
        const tokenError = yield* Effect.flip(badToken.methodology.methodology())
        assert.instanceOf(tokenError, InvalidTokenError)
      }).pipe(Effect.provide(FetchHttpClient.layer))
    )
  })

/** What the key store was given, in order: new keys as JSON, looked-up hashes as they are. */
const seen: Array<string> = []
const spy = Layer.effect(
  ApiKeyRepository,
  Effect.gen(function* () {
    const real = yield* ApiKeyRepository
    return ApiKeyRepository.of({
      ...real,
      create: (key) => {
        seen.push(JSON.stringify(key))
        return real.create(key)
      },
      findActiveByHash: (hash) => {
        seen.push(hash)
        return real.findActiveByHash(hash)
      }
    })
  })
)

const keysStoredHashed = (it: ServerIt, backend: Backend) =>
  describe("keys stored hashed", () => {
    it.effect(
      "keys are stored hashed: the store is given only the SHA-256 digest of a presented key, never the key (so no secret is compared in process)",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { key } = yield* server.createKey("free")
          seen.length = 0
          const unknown = generateApiKey()
          assert.strictEqual((yield* withBearer(server, "/api/v1/chains", key)).status, 200)
          assert.strictEqual((yield* withBearer(server, "/api/v1/chains", unknown)).status, 401)
          assert.deepStrictEqual(seen, [hashApiKey(key), hashApiKey(unknown)])
          for (const entry of seen) {
            assert.match(entry, /^[0-9a-f]{64}$/)
            assert.notInclude(entry, key.slice(3))
            assert.notInclude(entry, unknown.slice(3))
          }
          const stored = yield* Effect.orDie(server.keys.list())
          assert.notInclude(JSON.stringify(stored), key.slice(3))
        })
    )

    if (backend === "postgres")
      it.effect(
        "keys are stored hashed in Postgres: the api_keys row holds the digest and a display prefix, no column holds the key",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const sql = yield* database
            const { key, id } = yield* server.createKey("enterprise")
            assert.strictEqual(
              (yield* withBearer(server, "/api/v1/chains/chain-alpha/questions", key)).status,
              200
            )
            const rows =
              yield* Effect.orDie(sql<{ readonly [column: string]: unknown }>`SELECT * FROM api_keys`)
            const row = rows.find((r) => r.id === id)
            assert.isDefined(row, "the key the server authenticated is in this database")
            assert.strictEqual(row?.hash, hashApiKey(key))
            assert.strictEqual(row?.prefix, displayPrefix(key))
            assert.notInclude(JSON.stringify(rows), key.slice(3))
            assert.includeMembers(
              rows.map((r) => r.id),
              Object.values(Callers5).flatMap((c) => (c._tag === "ApiKey" ? [c.key_id] : []))
            )
            const [entities] = yield* Effect.orDie(
              sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM entities`
            )
            assert.isAbove(entities?.n ?? 0, 0, "keys and ratings share the one database")
          })
      )
  })

onEachBackend(
  (it, backend) => {
    apiKeysAndAnonymousCallers(it)
    keysStoredHashed(it, backend)
  },
  { server: { apiKeys: spy } }
)

describe("secrets never appear in logs or responses", () => {
  const lines: Array<string> = []
  const capture = Logger.make((options) => {
    lines.push(Logger.formatJson.log(options))
  })

  layer(TestServer.layerMemory(undefined, { logger: capture }), { excludeTestServices: true })(
    "logs",
    (it) => {
      it.effect(
        "a refused key, a refused token and a working key leave no trace of the credential in logs or bodies",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            const badKey = generateApiKey()
            const { key: goodKey } = yield* server.createKey("pro")
            const forged = yield* sign(adminClaims(server.idp), privateKeyOf(server.idp), {
              alg: "ES256"
            }).pipe(Effect.map((t) => `${t.slice(0, -4)}AAAA`))
            const responses = [
              yield* withBearer(server, "/api/v1/protocols", badKey),
              yield* withBearer(server, "/api/v1/protocols/protocol-alpha/questions", badKey),
              yield* withBearer(server, "/api/v1/protocols", forged),
              yield* withBearer(server, "/api/v1/protocols/protocol-alpha/domains", goodKey)
            ]
            assert.deepStrictEqual(
              responses.map((r) => r.status),
              [401, 401, 401, 200]
            )
            const logs = lines.join("\n")
            assert.include(logs, "credential refused", "the refusals are logged")
            assert.include(
              logs,
              "/api/v1/protocols/protocol-alpha/questions",
              "the request log is captured too"
            )
            for (const secret of [badKey, goodKey, forged]) {
              const fragment = secret.slice(3, 30)
              assert.notInclude(logs, fragment)
              for (const r of responses) {
                assert.notInclude(r.text, fragment)
                assert.notInclude(JSON.stringify([...r.headers]), fragment)
              }
            }
          })
      )
    }
  )
})

describe("client address", () => {
  it("X-Forwarded-For is ignored unless proxies are trusted; then the entry the trusted proxy appended counts", () => {
    const socket = Option.some("10.0.0.5")
    assert.strictEqual(clientAddressOf(socket, "203.0.113.7", 0), "10.0.0.5")
    assert.strictEqual(clientAddressOf(socket, "198.51.100.1, 203.0.113.7", 1), "203.0.113.7")
    assert.strictEqual(clientAddressOf(socket, "198.51.100.1, 203.0.113.7, 10.0.0.9", 2), "203.0.113.7")
    assert.strictEqual(clientAddressOf(socket, "203.0.113.7", 3), "203.0.113.7")
    assert.strictEqual(clientAddressOf(socket, "not-an-ip", 1), "10.0.0.5")
    assert.strictEqual(clientAddressOf(socket, undefined, 1), "10.0.0.5")
    assert.strictEqual(clientAddressOf(Option.none(), undefined, 0), "unknown")
  })

  it("the Authorization header is read as: absent, an API key (rk_), a JWT, or malformed", () => {
    assert.deepStrictEqual(credentialOf(undefined), { _tag: "None" })
    assert.deepStrictEqual(credentialOf(" "), { _tag: "None" })
    assert.deepStrictEqual(credentialOf("Bearer rk_abc"), { _tag: "ApiKey", key: "rk_abc" })
    assert.deepStrictEqual(credentialOf("bearer  eyJ.x.y"), { _tag: "Jwt", token: "eyJ.x.y" })
    assert.deepStrictEqual(credentialOf("Basic abc"), { _tag: "Malformed" })
    assert.deepStrictEqual(credentialOf("Bearer "), { _tag: "Malformed" })
  })
})

layer(TestServer.layerMemory(undefined, { auth: () => ({ trustProxy: true }) }), {
  excludeTestServices: true
})("behind a trusted proxy", (it) => {
  it.effect("with trustProxy the anonymous caller is the address the proxy saw, not the socket's", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      yield* server.get("/api/v1/protocols", { headers: { "x-forwarded-for": "198.51.100.1, 203.0.113.7" } })
      assert.deepStrictEqual(lastCaller(server), Caller.anonymous("203.0.113.7"))
    })
  )

  it.effect("with no identity provider configured every JWT is refused with 401 invalid_token", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      const token = yield* server.adminToken("super_admin")
      const r = yield* withBearer(server, "/api/v1/protocols?include_inactive=true", token)
      assert.strictEqual(r.status, 401)
      assert.deepStrictEqual(r.json, InvalidToken)
    })
  )
})

layer(TestServer.layerMemory(), { excludeTestServices: true })("without a trusted proxy", (it) => {
  it.effect("X-Forwarded-For is ignored: a client cannot choose its own address", () =>
    Effect.gen(function* () {
      const server = yield* TestServer
      yield* server.get("/api/v1/protocols", { headers: { "x-forwarded-for": "203.0.113.7" } })
      assert.deepStrictEqual(lastCaller(server), Caller.anonymous("127.0.0.1"))
    })
  )
})
