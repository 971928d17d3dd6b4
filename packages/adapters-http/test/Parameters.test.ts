/**
 * Spec part 4 "List query parameters" and every 422 case of part 7 that the
 * read routes can give, over the real server on each backend (in memory and
 * Postgres, where the filters are SQL); plus the parameter codecs and the
 * FastAPI-style issue mapping on their own.
 */
import { assert, describe, it } from "@effect/vitest"
import { ListParameters } from "@ratings/domain/access/ListFilter"
import {
  type EntityType,
  EntityTypes,
  PluralOf,
  ScorecardByIdSegment
} from "@ratings/domain/model/EntityType"
import { Effect, Result, Schema } from "effect"
import * as fc from "fast-check"
import {
  BooleanParam,
  IntegerParam,
  ListDefaults,
  ListQueryFields,
  toListRequest,
  UuidParam
} from "../src/api/Parameters.ts"
import { toValidationIssues } from "../src/server/ErrorMapping.ts"
import { entityId, slugOf } from "./fixtures.ts"
import { onEachBackend, type ServerIt, TestServer } from "./TestServer.ts"

const slugsOf = (json: unknown): ReadonlyArray<string> =>
  (json as { readonly items: ReadonlyArray<{ readonly slug: string }> }).items.map((r) => r.slug)
const totalOf = (json: unknown): number => (json as { readonly total: number }).total

const decode = <T>(schema: Schema.Codec<T, string>, input: unknown) =>
  Schema.decodeUnknownResult(schema)(input)

describe("parameter codecs", () => {
  it("integers parse from their digits only; fractions, exponents, hex and empty text are rejected", () => {
    const Limit = IntegerParam({ minimum: 1, maximum: 200 })
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), (n) => {
        assert.deepStrictEqual(decode(Limit, String(n)), Result.succeed(n))
      })
    )
    for (const text of ["abc", "1.5", "5e1", "0x10", "", " 5", "50abc"]) {
      assert.isTrue(Result.isFailure(decode(Limit, text)), text)
    }
  })

  it("integers outside the bounds are rejected, inside them accepted", () => {
    const Limit = IntegerParam({ minimum: 1, maximum: 200 })
    fc.assert(
      fc.property(fc.integer({ min: -10_000, max: 10_000 }), (n) => {
        assert.strictEqual(Result.isSuccess(decode(Limit, String(n))), n >= 1 && n <= 200)
      })
    )
  })

  it("booleans accept FastAPI's spellings in any case and nothing else", () => {
    for (const text of ["true", "TRUE", "1", "yes", "on", "t", "Y"]) {
      assert.deepStrictEqual(decode(BooleanParam, text), Result.succeed(true), text)
    }
    for (const text of ["false", "False", "0", "no", "off", "f", "N"]) {
      assert.deepStrictEqual(decode(BooleanParam, text), Result.succeed(false), text)
    }
    for (const text of ["maybe", "", "2", "truthy"])
      assert.isTrue(Result.isFailure(decode(BooleanParam, text)))
  })

  it("UUID parameters accept UUIDs and reject anything else", () => {
    fc.assert(
      fc.property(fc.uuid({ version: 4 }), (u) => assert.isTrue(Result.isSuccess(decode(UuidParam, u))))
    )
    assert.isTrue(Result.isFailure(decode(UuidParam, "not-a-uuid")))
  })

  it("each type's list query holds exactly the parameters the spec's table gives it", () => {
    const common = ["category", "skip", "limit", "include_inactive"]
    for (const type of EntityTypes) {
      assert.deepStrictEqual(
        Object.keys(ListQueryFields[type]).sort(),
        [...common, ...ListParameters[type]].sort(),
        type
      )
    }
  })

  it("defaults: skip 0, limit 50, include_inactive false, include_frameworks false, no categories", () => {
    assert.deepStrictEqual(toListRequest("vault", {}), {
      entity_type: "vault",
      status: undefined,
      search: undefined,
      categories: [],
      chain: undefined,
      curator_id: undefined,
      skip: 0,
      limit: 50,
      include_inactive: false,
      include_frameworks: false
    })
    assert.deepStrictEqual(ListDefaults, {
      skip: 0,
      limit: 50,
      include_inactive: false,
      include_frameworks: false
    })
  })

  it("a decode failure maps to one FastAPI-style entry per failed parameter, echoing what was sent", () => {
    const Query = Schema.Struct(ListQueryFields.protocol)
    const sent = { limit: "201", skip: "-1", include_inactive: "maybe" }
    const result = Schema.decodeUnknownResult(Query)(sent, { errors: "all" })
    assert.isTrue(Result.isFailure(result))
    if (Result.isFailure(result)) {
      const issues = toValidationIssues("query", result.failure.issue, sent)
      assert.deepStrictEqual(issues, [
        {
          type: "greater_than_equal",
          loc: ["query", "skip"],
          msg: "Input should be greater than or equal to 0",
          input: "-1",
          ctx: { ge: 0 }
        },
        {
          type: "less_than_equal",
          loc: ["query", "limit"],
          msg: "Input should be less than or equal to 200",
          input: "201",
          ctx: { le: 200 }
        },
        {
          type: "bool_parsing",
          loc: ["query", "include_inactive"],
          msg: "Input should be a valid boolean, unable to interpret input",
          input: "maybe"
        }
      ])
    }
  })
})

const listParameters = (it: ServerIt) =>
  describe("list query parameters (spec part 4)", () => {
    const list = (type: EntityType, query = "", caller?: "admin" | "pro") =>
      Effect.gen(function* () {
        return yield* (yield* TestServer).get(`/api/v1/${PluralOf[type]}${query}`, { caller })
      })

    it.effect("status filters protocols, chains, tokens, oracles and bridges", () =>
      Effect.gen(function* () {
        for (const type of ["protocol", "chain", "token", "oracle", "bridge"] as const) {
          for (const status of ["draft", "scoring", "approved"] as const) {
            const admin = yield* list(type, `?status=${status}`, "admin")
            assert.deepStrictEqual(slugsOf(admin.json), [slugOf(type, status)], `${type} as admin`)
            assert.strictEqual(totalOf(admin.json), 1)
            for (const caller of [undefined, "pro"] as const) {
              const r = yield* list(type, `?status=${status}`, caller)
              assert.deepStrictEqual(r.json, { items: [], total: 0 }, `${type} ${status} as ${caller}`)
            }
          }
          const published = yield* list(type, "?status=published")
          assert.deepStrictEqual(slugsOf(published.json), slugsOf((yield* list(type)).json), type)
          assert.include(slugsOf(published.json), slugOf(type, "alpha"), type)
        }
      })
    )

    it.effect("search is a case-insensitive substring of the name or slug (and a token's symbol)", () =>
      Effect.gen(function* () {
        for (const type of ["protocol", "chain", "token", "oracle", "bridge"] as const) {
          const r = yield* list(type, "?search=BETA")
          assert.deepStrictEqual(slugsOf(r.json), [slugOf(type, "beta")], type)
        }
        assert.deepStrictEqual(slugsOf((yield* list("token", "?search=tgamma")).json), ["token-gamma"])
      })
    )

    it.effect("search matches its text as given: % and _ are characters, not wildcards", () =>
      Effect.gen(function* () {
        for (const type of ["protocol", "chain", "token", "oracle", "bridge"] as const) {
          for (const needle of ["%", "_", "%25", "a%a", "_lpha"]) {
            const r = yield* list(type, `?search=${encodeURIComponent(needle)}`, "admin")
            assert.deepStrictEqual(r.json, { items: [], total: 0 }, `${type} ${needle}`)
          }
        }
      })
    )

    it.effect("category: for chains, tokens and bridges multiple values combine with AND semantics", () =>
      Effect.gen(function* () {
        const and: ReadonlyArray<readonly [EntityType, string, string]> = [
          ["chain", "core", "l1"],
          ["token", "governance", "stablecoin"],
          ["bridge", "messaging", "light-client"]
        ]
        for (const [type, a, b] of and) {
          const one = yield* list(type, `?category=${a}`)
          const both = yield* list(type, `?category=${a}&category=${b}`)
          assert.isAbove(slugsOf(one.json).length, 1, type)
          assert.deepStrictEqual(slugsOf(both.json), [slugOf(type, "alpha")], type)
        }
      })
    )

    it.effect("category: protocols and oracles are single-select while repeated values are accepted", () =>
      Effect.gen(function* () {
        assert.deepStrictEqual(slugsOf((yield* list("protocol", "?category=dex")).json), ["protocol-beta"])
        assert.deepStrictEqual(slugsOf((yield* list("protocol", "?category=dex&category=lending")).json), [
          "protocol-alpha",
          "protocol-beta",
          "protocol-gamma"
        ])
        assert.deepStrictEqual(
          slugsOf((yield* list("protocol", "?category=dex&category=lending", "admin")).json),
          [
            "protocol-alpha",
            "protocol-approved",
            "protocol-beta",
            "protocol-draft",
            "protocol-gamma",
            "protocol-scoring"
          ]
        )
        assert.strictEqual((yield* list("oracle", "?category=price-feed&category=price-feed")).status, 200)
      })
    )

    it.effect("chain (a chain slug) filters protocols, tokens, oracles, vaults and bridges", () =>
      Effect.gen(function* () {
        for (const type of ["protocol", "token", "oracle", "vault", "bridge"] as const) {
          assert.deepStrictEqual(
            slugsOf((yield* list(type, "?chain=arbitrum")).json),
            [slugOf(type, "gamma")],
            type
          )
        }
      })
    )

    it.effect("curator_id (UUID) filters vaults to those curated by that organisation", () =>
      Effect.gen(function* () {
        const r = yield* list("vault", `?curator_id=${entityId("organisation", "alpha")}`)
        assert.deepStrictEqual(slugsOf(r.json), ["vault-alpha"])
      })
    )

    it.effect("include_frameworks surfaces framework-tier vaults for the admin bypass only", () =>
      Effect.gen(function* () {
        assert.notInclude(slugsOf((yield* list("vault", "?include_frameworks=true")).json), "vault-framework")
        assert.notInclude(
          slugsOf((yield* list("vault", "?include_frameworks=true", "pro")).json),
          "vault-framework"
        )
        assert.include(
          slugsOf((yield* list("vault", "?include_frameworks=true", "admin")).json),
          "vault-framework"
        )
      })
    )

    it.effect(
      "include_inactive shows inactive records for the admin bypass only; silently ignored otherwise",
      () =>
        Effect.gen(function* () {
          for (const type of EntityTypes) {
            assert.notInclude(
              slugsOf((yield* list(type, "?include_inactive=true")).json),
              slugOf(type, "retired")
            )
            assert.notInclude(
              slugsOf((yield* list(type, "?include_inactive=true", "pro")).json),
              slugOf(type, "retired")
            )
            const admin = slugsOf((yield* list(type, "?include_inactive=true", "admin")).json)
            assert.include(admin, slugOf(type, "retired"), type)
            assert.notInclude(admin, slugOf(type, "private"), type)
          }
        })
    )

    it.effect(
      "skip and limit page the list, total is the filtered count, defaults are skip 0 and limit 50",
      () =>
        Effect.gen(function* () {
          const all = yield* list("protocol")
          assert.deepStrictEqual(slugsOf(all.json), ["protocol-alpha", "protocol-beta", "protocol-gamma"])
          assert.strictEqual(totalOf(all.json), 3)
          const page = yield* list("protocol", "?skip=1&limit=2")
          assert.deepStrictEqual(slugsOf(page.json), ["protocol-beta", "protocol-gamma"])
          assert.strictEqual(totalOf(page.json), 3)
          const adminPage = yield* list("protocol", "?skip=1&limit=2", "admin")
          assert.deepStrictEqual(slugsOf(adminPage.json), ["protocol-approved", "protocol-beta"])
          assert.strictEqual(totalOf(adminPage.json), 6)
          const filtered = yield* list("protocol", "?category=lending&limit=1")
          assert.strictEqual(totalOf(filtered.json), 2)
          assert.strictEqual(slugsOf(filtered.json).length, 1)
          assert.deepStrictEqual(slugsOf((yield* list("protocol", "?skip=10")).json), [])
          assert.strictEqual((yield* list("protocol", "?limit=200")).status, 200)
          assert.strictEqual((yield* list("protocol", "?limit=1")).status, 200)
        })
    )

    it.effect("a parameter that does not apply to a type is ignored, even when malformed", () =>
      Effect.gen(function* () {
        const plain = slugsOf((yield* list("vault")).json)
        const r = yield* list("vault", "?status=draft&search=zzz")
        assert.strictEqual(r.status, 200)
        assert.deepStrictEqual(slugsOf(r.json), plain)
        assert.strictEqual(
          (yield* list("protocol", "?curator_id=not-a-uuid&include_frameworks=maybe")).status,
          200
        )
        assert.strictEqual((yield* list("organisation", "?chain=arbitrum")).status, 200)
        assert.deepStrictEqual(
          slugsOf((yield* list("chain", "?chain=arbitrum")).json),
          slugsOf((yield* list("chain")).json)
        )
      })
    )
  })

const validationErrors = (it: ServerIt) =>
  describe("422 on every parameter or path failure (spec part 7)", () => {
    const get = (path: string) =>
      Effect.gen(function* () {
        return yield* (yield* TestServer).get(path, { caller: "enterprise" })
      })
    const detailOf = (json: unknown) =>
      (
        json as {
          readonly detail: ReadonlyArray<{ type: string; loc: ReadonlyArray<string>; input: unknown }>
        }
      ).detail

    const expect422 = (path: string, loc: ReadonlyArray<string>, type: string, input: unknown) =>
      Effect.gen(function* () {
        const r = yield* get(path)
        assert.strictEqual(r.status, 422, path)
        const entry = detailOf(r.json).find((d) => d.loc.join(".") === loc.join("."))
        assert.isDefined(entry, `${path}: ${r.text}`)
        assert.strictEqual(entry?.type, type, path)
        assert.deepStrictEqual(entry?.input, input, path)
        assert.strictEqual(r.headers.get("content-type"), "application/json")
      })

    it.effect("limit above 200 gives 422", () =>
      Effect.forEach(EntityTypes, (t) =>
        expect422(`/api/v1/${PluralOf[t]}?limit=201`, ["query", "limit"], "less_than_equal", "201")
      )
    )

    it.effect("limit below 1 gives 422", () =>
      expect422("/api/v1/protocols?limit=0", ["query", "limit"], "greater_than_equal", "0")
    )

    it.effect("skip below 0 gives 422", () =>
      Effect.forEach(EntityTypes, (t) =>
        expect422(`/api/v1/${PluralOf[t]}?skip=-1`, ["query", "skip"], "greater_than_equal", "-1")
      )
    )

    it.effect("a limit that is not an integer gives 422", () =>
      Effect.gen(function* () {
        yield* expect422("/api/v1/protocols?limit=abc", ["query", "limit"], "int_parsing", "abc")
        yield* expect422("/api/v1/protocols?limit=1.5", ["query", "limit"], "int_parsing", "1.5")
        yield* expect422("/api/v1/protocols?limit=", ["query", "limit"], "int_parsing", "")
      })
    )

    it.effect("include_inactive that is not a boolean gives 422, on lists and detail", () =>
      Effect.gen(function* () {
        yield* expect422(
          "/api/v1/chains?include_inactive=maybe",
          ["query", "include_inactive"],
          "bool_parsing",
          "maybe"
        )
        yield* expect422(
          "/api/v1/chains/chain-alpha?include_inactive=maybe",
          ["query", "include_inactive"],
          "bool_parsing",
          "maybe"
        )
        yield* expect422(
          "/api/v1/vaults?include_frameworks=perhaps",
          ["query", "include_frameworks"],
          "bool_parsing",
          "perhaps"
        )
      })
    )

    it.effect("an invalid curator_id UUID on vaults gives 422", () =>
      expect422("/api/v1/vaults?curator_id=nope", ["query", "curator_id"], "uuid_parsing", "nope")
    )

    it.effect("an invalid UUID for scorecard_id gives 422 on every type's scorecard-by-id path", () =>
      Effect.forEach(EntityTypes, (t) =>
        expect422(
          `/api/v1/${ScorecardByIdSegment[t]}/not-a-uuid`,
          ["path", "scorecard_id"],
          "uuid_parsing",
          "not-a-uuid"
        )
      )
    )

    it.effect("a slug that is not kebab-case gives 422 on the per-entity data routes", () =>
      Effect.forEach(["domains", "history", "questions", "rubric", "evidence"], (route) =>
        expect422(
          `/api/v1/tokens/Not_A_Slug/${route}`,
          ["path", "slug"],
          "string_pattern_mismatch",
          "Not_A_Slug"
        )
      )
    )

    it.effect("every failed parameter is reported, not only the first", () =>
      Effect.gen(function* () {
        const r = yield* get("/api/v1/protocols?limit=abc&skip=-1&include_inactive=maybe")
        assert.strictEqual(r.status, 422)
        assert.deepStrictEqual(
          detailOf(r.json)
            .map((d) => d.loc.join("."))
            .sort(),
          ["query.include_inactive", "query.limit", "query.skip"]
        )
      })
    )

    it.effect("never a 500 for bad input: any text in any list parameter gives 200 or 422", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const names = [
          "status",
          "search",
          "category",
          "chain",
          "curator_id",
          "skip",
          "limit",
          "include_inactive",
          "include_frameworks"
        ]
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(
              fc.constantFrom(...EntityTypes),
              fc.constantFrom(...names),
              fc.string({ unit: "grapheme", maxLength: 12 }),
              async (type, name, value) => {
                const url = `${server.baseUrl}/api/v1/${PluralOf[type]}?${name}=${encodeURIComponent(value)}`
                const response = await fetch(url)
                await response.arrayBuffer()
                assert.include([200, 422], response.status, url)
              }
            ),
            { numRuns: 150 }
          )
        )
      })
    )

    it.effect("never a 500 for bad input: any text as a path segment gives 200, 404 or 422", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(
              fc.constantFrom(...EntityTypes),
              fc.constantFrom("", "/scorecards", "/domains", "/questions"),
              fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 }),
              async (type, route, segment) => {
                const url = `${server.baseUrl}/api/v1/${PluralOf[type]}/${encodeURIComponent(segment)}${route}`
                const response = await fetch(url, {
                  headers: { authorization: server.bearerFor("enterprise")! }
                })
                await response.arrayBuffer()
                assert.include([200, 404, 422], response.status, url)
              }
            ),
            { numRuns: 150 }
          )
        )
      })
    )
  })

onEachBackend((it) => {
  listParameters(it)
  validationErrors(it)
})
