/**
 * HTTP caching of public reads over the real server (issue 4 "Beyond"; RFC
 * 9110 section 13 and RFC 9111): a strong ETag of the body bytes, 304 on a
 * matching If-None-Match (weak comparison), `public, max-age=60` for
 * anonymous reads, `private` for keyed ones, `Vary: Authorization`, and no
 * caching of errors.
 */
import { createHash } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import { matchesIfNoneMatch, varyWith } from "../src/server/Caching.ts"
import { type CallerName, Seed } from "./fixtures.ts"
import { type Response, TestServer } from "./TestServer.ts"

const get = (path: string, options: { readonly caller?: CallerName; readonly ifNoneMatch?: string } = {}) =>
  Effect.gen(function* () {
    return yield* (yield* TestServer).get(path, {
      caller: options.caller,
      headers: options.ifNoneMatch === undefined ? {} : { "if-none-match": options.ifNoneMatch }
    })
  })

const etagOf = (r: Response): string => {
  const etag = r.headers.get("etag")
  assert.isNotNull(etag, `status ${r.status} has an ETag`)
  return etag!
}

const varies = (r: Response): ReadonlyArray<string> =>
  (r.headers.get("vary") ?? "").split(",").map((s) => s.trim().toLowerCase())

const PublicReads = [
  "/api/v1/protocols",
  "/api/v1/protocols?limit=2",
  "/api/v1/chains/chain-alpha",
  "/api/v1/tokens/token-alpha/scorecards",
  "/api/v1/methodology"
]

const server = TestServer.layerMemory()

describe("HTTP caching of reads", () => {
  it.effect("a public read carries a strong ETag that is a digest of its body bytes", () =>
    Effect.gen(function* () {
      const seen = new Set<string>()
      for (const path of PublicReads) {
        const r = yield* get(path)
        assert.strictEqual(r.status, 200, path)
        const etag = etagOf(r)
        assert.isFalse(etag.startsWith("W/"), "strong")
        const digest = createHash("sha256").update(Buffer.from(r.text, "utf8")).digest("base64url")
        assert.strictEqual(etag, `"${digest.slice(0, 27)}"`, path)
        assert.strictEqual(etagOf(yield* get(path)), etag, "the same bytes, the same tag")
        seen.add(etag)
      }
      assert.strictEqual(seen.size, PublicReads.length, "different bodies, different tags")
    }).pipe(Effect.provide(server))
  )

  it.effect("anonymous public reads are Cache-Control: public, max-age=60 and vary on Authorization", () =>
    Effect.gen(function* () {
      for (const path of PublicReads) {
        const r = yield* get(path)
        assert.strictEqual(r.headers.get("cache-control"), "public, max-age=60", path)
        assert.include(varies(r), "authorization", path)
      }
    }).pipe(Effect.provide(server))
  )

  it.effect("keyed responses are private (and vary on Authorization): a shared cache never serves them", () =>
    Effect.gen(function* () {
      for (const caller of ["free", "pro", "enterprise", "admin"] as const) {
        const r = yield* get("/api/v1/tokens/token-alpha/scorecards", { caller })
        assert.strictEqual(r.status, 200)
        assert.strictEqual(r.headers.get("cache-control"), "private, max-age=60", caller)
        assert.include(varies(r), "authorization", caller)
      }
      const gated = yield* get("/api/v1/protocols/protocol-alpha/domains", { caller: "pro" })
      assert.strictEqual(gated.headers.get("cache-control"), "private, max-age=60")
      etagOf(gated)
    }).pipe(Effect.provide(server))
  )

  it.effect("responses that depend on the tier get different tags for different tiers", () =>
    Effect.gen(function* () {
      const path = "/api/v1/tokens/token-alpha/scorecards"
      const anonymous = yield* get(path)
      const pro = yield* get(path, { caller: "pro" })
      assert.notStrictEqual(anonymous.text, pro.text, "the fixture's Pro list holds the version history")
      assert.notStrictEqual(etagOf(anonymous), etagOf(pro))
      const revalidated = yield* get(path, { caller: "pro", ifNoneMatch: etagOf(anonymous) })
      assert.strictEqual(
        revalidated.status,
        200,
        "the anonymous tag does not validate the Pro representation"
      )
    }).pipe(Effect.provide(server))
  )

  it.effect("If-None-Match with the current ETag gives 304 with no body and the same validators", () =>
    Effect.gen(function* () {
      for (const path of PublicReads) {
        const first = yield* get(path)
        const etag = etagOf(first)
        const r = yield* get(path, { ifNoneMatch: etag })
        assert.strictEqual(r.status, 304, path)
        assert.strictEqual(r.text, "")
        assert.strictEqual(r.headers.get("etag"), etag)
        assert.strictEqual(r.headers.get("cache-control"), "public, max-age=60")
        assert.include(varies(r), "authorization")
        assert.isNotNull(r.headers.get("ratelimit-remaining"), "a 304 is still a counted request")
      }
    }).pipe(Effect.provide(server))
  )

  it.effect("If-None-Match uses the weak comparison: W/ tags, lists and * match; another tag does not", () =>
    Effect.gen(function* () {
      const path = "/api/v1/protocols"
      const etag = etagOf(yield* get(path))
      const statusFor = (ifNoneMatch: string) => Effect.map(get(path, { ifNoneMatch }), (r) => r.status)
      assert.strictEqual(yield* statusFor(`W/${etag}`), 304)
      assert.strictEqual(yield* statusFor(`"other", W/"more", ${etag}`), 304)
      assert.strictEqual(yield* statusFor("*"), 304)
      assert.strictEqual(yield* statusFor('"other"'), 200)
      assert.strictEqual(
        yield* statusFor(`W/"${etag.slice(1, -2)}"`),
        200,
        "a prefix of the tag is another tag"
      )
    }).pipe(Effect.provide(server))
  )

  it.effect("errors are never cached: 404, 422, 401, 403 and 429 are no-store, with no ETag", () =>
    Effect.gen(function* () {
      const responses = [
        yield* get("/api/v1/protocols/no-such-protocol"),
        yield* get("/api/v1/protocols?limit=0"),
        yield* get("/api/v1/protocols/protocol-alpha/domains"),
        yield* get("/api/v1/protocols/protocol-alpha/questions", { caller: "pro" }),
        yield* get("/api/v1/protocols"),
        yield* get("/api/v1/protocols")
      ]
      assert.deepStrictEqual(
        responses.map((r) => r.status),
        [404, 422, 401, 403, 200, 429]
      )
      for (const r of responses.filter((r) => r.status >= 400)) {
        assert.strictEqual(r.headers.get("cache-control"), "no-store", String(r.status))
        assert.isNull(r.headers.get("etag"), String(r.status))
      }
    }).pipe(
      Effect.provide(
        TestServer.layerMemory(Seed, {
          policies: { limits: { anonymous: [{ limit: 4, window: "1 minute" }] } }
        })
      )
    )
  )

  it("the weak comparison: a tag matches itself with or without W/ on either side, anywhere in a list", () => {
    const opaque = fc.stringMatching(/^[!#-~]{0,20}$/)
    fc.assert(
      fc.property(
        opaque,
        fc.array(opaque),
        fc.boolean(),
        fc.boolean(),
        (tag, others, weakOurs, weakTheirs) => {
          const ours = `${weakOurs ? "W/" : ""}"${tag}"`
          const listed = others.map((o) => `"${o}"`)
          const without = listed.join(", ")
          const withIt = [...listed, `${weakTheirs ? "W/" : ""}"${tag}"`].join(", ")
          return (
            matchesIfNoneMatch(withIt, ours) &&
            matchesIfNoneMatch(without, ours) === others.includes(tag) &&
            matchesIfNoneMatch("*", ours) &&
            !matchesIfNoneMatch(undefined, ours)
          )
        }
      )
    )
  })

  it("Vary gains Authorization once, keeping what it had", () => {
    assert.strictEqual(varyWith(undefined, "Authorization"), "Authorization")
    assert.strictEqual(varyWith("Accept-Encoding", "Authorization"), "Accept-Encoding, Authorization")
    assert.strictEqual(
      varyWith("accept-encoding, authorization", "Authorization"),
      "accept-encoding, authorization"
    )
    assert.strictEqual(varyWith("*", "Authorization"), "*")
  })
})
