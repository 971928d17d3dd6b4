/**
 * The OpenAPI document as served (spec part 9: /openapi.json declares 0.1.0):
 * every per-entity route with real parameter schemas (bounds, formats,
 * patterns, defaults) and every response it can give; and live responses of
 * the running server held to the document's own component schemas, compiled
 * with Effect's JSON Schema importer (no ajv in the repository), on each
 * backend, so that what Postgres reads back is held to the contract too.
 */
import { assert, describe } from "@effect/vitest"
import { Capabilities } from "@ratings/domain/access/Capabilities"
import {
  type EntityType,
  EntityTypes,
  PluralOf,
  ScorecardByIdSegment
} from "@ratings/domain/model/EntityType"
import { SlugPattern } from "@ratings/domain/model/Primitives"
import { Effect, JsonSchema, Result, Schema, SchemaRepresentation } from "effect"
import { cardsOf, slugOf } from "./fixtures.ts"
import { onEachBackend, type Response, TestServer } from "./TestServer.ts"

// biome-ignore lint/suspicious/noExplicitAny: response bodies are probed field by field in assertions
type Json = { readonly [key: string]: any }

/** A citation of the spec: the word spec, or "part <n>" ("spec part 5 rule 2", "part 4"). */
const SpecCitation = /\bspec\b|\bpart \d/i

const Document = Effect.gen(function* () {
  const r = yield* (yield* TestServer).get("/openapi.json")
  assert.strictEqual(r.status, 200)
  return r.json as Json
})

const get = (path: string, caller?: "pro" | "enterprise") =>
  Effect.gen(function* () {
    return yield* (yield* TestServer).get(path, { caller })
  })

const operation = (doc: Json, path: string): Json => {
  const op = doc.paths[path]?.get
  assert.isDefined(op, `GET ${path} is documented`)
  return op
}

const parameter = (op: Json, name: string): Json => {
  const p = op.parameters.find((x: Json) => x.name === name)
  assert.isDefined(p, `parameter ${name} of ${op.operationId}`)
  return p
}

const refOf = (op: Json, status: number): string | undefined =>
  op.responses[status]?.content?.["application/json"]?.schema?.$ref

const routesOf = (type: EntityType) => {
  const base = `/api/v1/${PluralOf[type]}`
  return {
    list: base,
    detail: `${base}/{identifier}`,
    scorecards: `${base}/{id_or_slug}/scorecards`,
    domains: `${base}/{slug}/domains`,
    history: `${base}/{slug}/history`,
    questions: `${base}/{slug}/questions`,
    rubric: `${base}/{slug}/rubric`,
    evidence: `${base}/{slug}/evidence`,
    scorecard_by_id: `/api/v1/${ScorecardByIdSegment[type]}/{scorecard_id}`
  } as const
}

const ListParameters: { readonly [T in EntityType]: ReadonlyArray<string> } = {
  protocol: ["status", "search", "chain"],
  chain: ["status", "search"],
  token: ["status", "search", "chain"],
  oracle: ["status", "search", "chain"],
  vault: ["chain", "curator_id", "include_frameworks"],
  organisation: [],
  bridge: ["status", "search", "chain"]
}

/** A validator for one component of the served document. */
const validatorOf = (doc: Json, component: string) => {
  const document = JsonSchema.fromSchemaOpenApi3_1({
    $ref: `#/components/schemas/${component}`,
    $defs: doc.components.schemas
  })
  const schema = SchemaRepresentation.fromJsonSchemaDocument(document, { patterns: "apply" }) as Schema.Codec<
    unknown,
    unknown
  >
  return (value: unknown) =>
    Schema.decodeUnknownResult(schema)(value, { onExcessProperty: "error", errors: "all" })
}

const assertValid = (doc: Json, component: string, r: Response, status: number) => {
  assert.strictEqual(r.status, status, component)
  const result = validatorOf(doc, component)(r.json)
  assert.isTrue(Result.isSuccess(result), `${component}: ${Result.isFailure(result) ? result.failure : ""}`)
}

onEachBackend((it) => {
  describe("OpenAPI document (spec part 9)", () => {
    it.effect("the machine-readable description declares version 0.1.0 and is served at /openapi.json", () =>
      Effect.gen(function* () {
        const doc = yield* Document
        assert.strictEqual(doc.info.version, "0.1.0")
        assert.strictEqual(doc.openapi, "3.1.0")
      })
    )

    it.effect(
      "the document points AI agents at the MCP server at /mcp, which it does not list as an operation",
      () =>
        Effect.gen(function* () {
          const doc = yield* Document
          assert.include(doc.info.description, "POST /mcp")
          assert.notProperty(doc.paths, "/mcp")
          // That the MCP server answers there: adapters-mcp McpMount.test.ts.
        })
    )

    it.effect(
      "OpenAPI tag names in one style (sentence case), listed in the order a reader needs them: entities, incidents, quantum readiness, methodology, export and compare, alert rules, coverage requests, system",
      () =>
        Effect.gen(function* () {
          const doc = yield* Document
          const names: ReadonlyArray<string> = doc.tags.map((tag: Json) => tag.name)
          for (const name of names) assert.match(name, /^[A-Z][a-z]+( [a-z]+)*$/, `tag "${name}"`)
          assert.deepStrictEqual(names, [
            "Protocols",
            "Chains",
            "Tokens",
            "Oracles",
            "Vaults",
            "Organisations",
            "Bridges",
            "Incidents",
            "Quantum readiness",
            "Methodology",
            "Export and compare",
            "Alert rules",
            "Coverage requests",
            "System"
          ])
          const used = new Set<string>()
          for (const [path, methods] of Object.entries(doc.paths as Json))
            for (const [method, op] of Object.entries(methods as Json)) {
              assert.strictEqual(op.tags.length, 1, `${method} ${path}`)
              assert.include(names, op.tags[0], `${method} ${path}: tag ${op.tags[0]}`)
              used.add(op.tags[0])
            }
          assert.deepStrictEqual([...used].sort(), [...names].sort(), "every tag has operations")
        })
    )

    it.effect(
      "no public description, summary or title cites the spec (outside readers cannot see it): each says the rule itself",
      () =>
        Effect.gen(function* () {
          const doc = yield* Document
          const citing: Array<string> = []
          const walk = (value: unknown, key: string): void => {
            if (typeof value === "string") {
              if (["description", "summary", "title"].includes(key) && SpecCitation.test(value))
                citing.push(value)
            } else if (Array.isArray(value)) for (const item of value) walk(item, key)
            else if (typeof value === "object" && value !== null)
              for (const [k, v] of Object.entries(value)) walk(v, k)
          }
          walk(doc, "")
          assert.deepStrictEqual(citing, [])
          assert.isTrue(SpecCitation.test("Optional (spec part 5 rule 2)"), "the check can fail")
          assert.isFalse(
            SpecCitation.test("a specific part of 5 domains"),
            "words like specific are not citations"
          )
        })
    )

    it.effect("every per-entity route of every type is documented under /api/v1", () =>
      Effect.gen(function* () {
        const doc = yield* Document
        for (const type of EntityTypes) {
          for (const [capability, path] of Object.entries(routesOf(type))) {
            const op = operation(doc, path)
            assert.strictEqual(
              op["x-required-tier"],
              Capabilities[capability as keyof typeof Capabilities],
              path
            )
          }
        }
      })
    )

    it.effect("list parameters: exactly the spec's table per type, with types, bounds and defaults", () =>
      Effect.gen(function* () {
        const doc = yield* Document
        for (const type of EntityTypes) {
          const op = operation(doc, routesOf(type).list)
          const query = op.parameters.filter((p: Json) => p.in !== "header")
          assert.deepStrictEqual(
            query.map((p: Json) => p.name).sort(),
            ["category", "skip", "limit", "include_inactive", ...ListParameters[type]].sort(),
            type
          )
          assert.isTrue(
            query.every(
              (p: Json) => p.in === "query" && p.required === false && typeof p.description === "string"
            )
          )
          const limit = parameter(op, "limit").schema
          assert.deepStrictEqual(
            [limit.type, limit.minimum, limit.maximum, limit.default],
            ["integer", 1, 200, 50]
          )
          const skip = parameter(op, "skip").schema
          assert.deepStrictEqual([skip.type, skip.minimum, skip.default], ["integer", 0, 0])
          assert.deepStrictEqual(parameter(op, "include_inactive").schema, {
            type: "boolean",
            default: false
          })
          assert.deepStrictEqual(parameter(op, "category").schema, {
            type: "array",
            items: { type: "string" }
          })
        }
        const curator = parameter(operation(doc, routesOf("vault").list), "curator_id").schema
        assert.strictEqual(curator.format, "uuid")
        assert.isTrue(new RegExp(curator.pattern).test("00000000-0000-4000-8000-000000000001"))
        assert.isFalse(new RegExp(curator.pattern).test("not-a-uuid"))
      })
    )

    it.effect("path parameters: scorecard_id is a UUID, slug a kebab-case pattern, identifiers strings", () =>
      Effect.gen(function* () {
        const doc = yield* Document
        for (const type of EntityTypes) {
          const routes = routesOf(type)
          const id = parameter(operation(doc, routes.scorecard_by_id), "scorecard_id")
          assert.deepStrictEqual([id.in, id.required, id.schema.format], ["path", true, "uuid"])
          for (const route of [
            routes.domains,
            routes.history,
            routes.questions,
            routes.rubric,
            routes.evidence
          ]) {
            const slug = parameter(operation(doc, route), "slug")
            assert.deepStrictEqual(
              [slug.in, slug.required, slug.schema.pattern],
              ["path", true, SlugPattern.source]
            )
          }
          assert.deepStrictEqual(parameter(operation(doc, routes.detail), "identifier").schema, {
            type: "string"
          })
          assert.deepStrictEqual(parameter(operation(doc, routes.detail), "include_inactive").schema, {
            type: "boolean",
            default: false
          })
          assert.deepStrictEqual(parameter(operation(doc, routes.scorecards), "id_or_slug").schema, {
            type: "string"
          })
        }
      })
    )

    it.effect(
      "every response a route can give is documented with its body: 200, 401 (missing key where gated; invalid key or token everywhere), 403 where gated, 404 (lists: an unroutable path), 422, 429, 503",
      () =>
        Effect.gen(function* () {
          const doc = yield* Document
          const bodies: { readonly [status: number]: string } = {
            401: "#/components/schemas/MissingKeyBody",
            403: "#/components/schemas/InsufficientTierBody",
            404: "#/components/schemas/NotFoundBody",
            422: "#/components/schemas/ValidationErrorBody",
            429: "#/components/schemas/RateLimitedBody",
            503: "#/components/schemas/ServiceUnavailableBody"
          }
          for (const type of EntityTypes) {
            for (const [capability, path] of Object.entries(routesOf(type))) {
              const op = operation(doc, path)
              const gated = Capabilities[capability as keyof typeof Capabilities] !== "anonymous"
              const expected = [
                200,
                401,
                ...(gated ? [403] : []),
                404, // lists too: the router's "no route matches the path as sent"
                422,
                429,
                503
              ]
              assert.deepStrictEqual(Object.keys(op.responses).map(Number).sort(), expected.sort(), path)
              for (const status of expected.filter((s) => s !== 200 && s !== 401))
                assert.strictEqual(refOf(op, status), bodies[status])
              assert.deepStrictEqual(
                op.responses[401].content["application/json"].schema.anyOf.map((s: Json) => s.$ref),
                [
                  ...(gated ? [bodies[401]] : []),
                  "#/components/schemas/InvalidKeyBody",
                  "#/components/schemas/InvalidTokenBody"
                ],
                path
              )
              const success = refOf(op, 200)!
              assert.isDefined(doc.components.schemas[success.split("/").at(-1)!], `${path}: ${success}`)
            }
          }
        })
    )

    it.effect(
      "success bodies are typed per type: /tokens returns Token records, /bridges Bridge records",
      () =>
        Effect.gen(function* () {
          const doc = yield* Document
          const names: { readonly [T in EntityType]: string } = {
            protocol: "Protocol",
            chain: "Chain",
            token: "Token",
            oracle: "Oracle",
            vault: "Vault",
            organisation: "Organisation",
            bridge: "Bridge"
          }
          for (const type of EntityTypes) {
            const routes = routesOf(type)
            assert.strictEqual(
              refOf(operation(doc, routes.detail), 200),
              `#/components/schemas/${names[type]}`
            )
            const list = doc.components.schemas[`${names[type]}List`]
            assert.strictEqual(list.properties.items.items.$ref, `#/components/schemas/${names[type]}`)
            assert.deepStrictEqual(list.required.sort(), ["items", "total"])
            assert.strictEqual(
              refOf(operation(doc, routes.scorecards), 200),
              "#/components/schemas/ScorecardList"
            )
            assert.strictEqual(
              refOf(operation(doc, routes.scorecard_by_id), 200),
              "#/components/schemas/ScorecardDetail"
            )
          }
          const token = doc.components.schemas.Token
          assert.includeMembers(token.required, [
            "id",
            "name",
            "symbol",
            "slug",
            "chain",
            "status",
            "is_active"
          ])
          assert.notInclude(token.required, "contract_address")
          const bridge = doc.components.schemas.Bridge.properties
          assert.includeMembers(Object.keys(bridge), [
            "signer_count",
            "signing_threshold",
            "has_message_attestation",
            "pause_mechanism",
            "validator_set_owner"
          ])
        })
    )

    it.effect("error bodies are the FastAPI shapes", () =>
      Effect.gen(function* () {
        const schemas = (yield* Document).components.schemas
        assert.deepStrictEqual(schemas.NotFoundBody.properties.detail.enum, ["not found"])
        assert.deepStrictEqual(schemas.ValidationIssue.required.sort(), ["input", "loc", "msg", "type"])
        assert.strictEqual(schemas.ValidationErrorBody.properties.detail.type, "array")
      })
    )

    it.effect("live responses of every route validate against the document's component schemas", () =>
      Effect.gen(function* () {
        const doc = yield* Document
        const names = {
          protocol: "Protocol",
          chain: "Chain",
          token: "Token",
          oracle: "Oracle",
          vault: "Vault"
        }
        const more = { organisation: "Organisation", bridge: "Bridge" }
        for (const [type, name] of Object.entries({ ...names, ...more }) as ReadonlyArray<
          [EntityType, string]
        >) {
          const base = `/api/v1/${PluralOf[type]}`
          const slug = slugOf(type, "alpha")
          assertValid(doc, `${name}List`, yield* get(base), 200)
          assertValid(doc, name, yield* get(`${base}/${slug}`), 200)
          assertValid(doc, "ScorecardList", yield* get(`${base}/${slug}/scorecards`), 200)
          assertValid(doc, "ScorecardList", yield* get(`${base}/${slug}/scorecards`, "pro"), 200)
          assertValid(doc, "DomainsBody", yield* get(`${base}/${slug}/domains`, "pro"), 200)
          assertValid(doc, "HistoryBody", yield* get(`${base}/${slug}/history`, "pro"), 200)
          assertValid(doc, "QuestionsBody", yield* get(`${base}/${slug}/questions`, "enterprise"), 200)
          assertValid(doc, "RubricBody", yield* get(`${base}/${slug}/rubric`, "enterprise"), 200)
          assertValid(doc, "EvidenceBody", yield* get(`${base}/${slug}/evidence`, "enterprise"), 200)
          const card = cardsOf(type, "alpha")[1]!
          assertValid(
            doc,
            "ScorecardDetail",
            yield* get(`/api/v1/${ScorecardByIdSegment[type]}/${card.id}`, "enterprise"),
            200
          )
        }
        assertValid(doc, "NotFoundBody", yield* get("/api/v1/chains/no-such-chain"), 404)
        assertValid(doc, "MissingKeyBody", yield* get("/api/v1/chains/chain-alpha/domains"), 401)
        assertValid(
          doc,
          "InsufficientTierBody",
          yield* get("/api/v1/chains/chain-alpha/questions", "pro"),
          403
        )
        assertValid(doc, "ValidationErrorBody", yield* get("/api/v1/chains?limit=0&skip=x"), 422)
        const server = yield* TestServer
        const contact = {
          protocol_name: `OpenAPI Check ${crypto.randomUUID().slice(0, 8)}`,
          contact_email: "openapi.check@example.com",
          entity_type: "oracle"
        }
        const postContact = server.request("/api/v1/contacts", { method: "POST", body: contact })
        assertValid(doc, "ContactReceipt", yield* postContact, 201)
        assertValid(doc, "ContactReceipt", yield* postContact, 201)
      })
    )

    it.effect("the document's schemas reject bodies that break them, so the validation above can fail", () =>
      Effect.gen(function* () {
        const doc = yield* Document
        const token = (yield* get("/api/v1/tokens/token-alpha")).json as Json
        const valid = validatorOf(doc, "Token")
        assert.isTrue(Result.isSuccess(valid(token)))
        assert.isTrue(Result.isFailure(valid({ ...token, slug: "Not A Slug" })))
        assert.isTrue(Result.isFailure(valid({ ...token, id: "42" })))
        assert.isTrue(Result.isFailure(valid({ ...token, grade: "A" })))
        const { symbol: _, ...withoutSymbol } = token
        assert.isTrue(Result.isFailure(valid(withoutSymbol)))
        const list = (yield* get("/api/v1/chains/chain-alpha/scorecards")).json as Json
        const validList = validatorOf(doc, "ScorecardList")
        assert.isTrue(Result.isFailure(validList({ ...list, total: -1 })))
        assert.isTrue(
          Result.isFailure(validList({ items: [{ ...list.items[0], composite_score: 101 }], total: 1 }))
        )
      })
    )
  })
})
