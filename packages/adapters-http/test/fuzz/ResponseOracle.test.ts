/**
 * The fuzzer's oracle on its own, over a small hand-written OpenAPI 3.1
 * document: what it accepts and every way it refuses a response. Without
 * this, a fuzz run with 0 violations could mean an oracle that finds nothing.
 */
import { assert, describe, it } from "@effect/vitest"
import { type OpenApiDocument, type Operation, operationsOf } from "./Document.ts"
import { headerProblems, type Received, ResponseOracle } from "./ResponseOracle.ts"
import { NonFiniteNumbers } from "./SchemaArbitrary.ts"

const doc: OpenApiDocument = {
  openapi: "3.1.0",
  paths: {
    "/things/{id}": {
      get: {
        operationId: "things.get",
        parameters: [{ $ref: "#/components/parameters/Id" }],
        responses: {
          "200": {
            description: "ok",
            content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } }
          },
          "304": { description: "not modified" },
          "404": {
            description: "missing",
            content: { "application/json": { schema: { $ref: "#/components/schemas/NotFound" } } }
          },
          "503": {
            description: "down",
            content: { "application/json": { schema: { $ref: "#/components/schemas/NotFound" } } }
          }
        }
      },
      delete: { operationId: "things.delete", responses: { "204": { description: "gone" } } }
    },
    "/export.csv": {
      get: {
        operationId: "export",
        responses: { "200": { content: { "text/csv; charset=utf-8": { schema: { type: "string" } } } } }
      }
    }
  },
  components: {
    parameters: {
      Id: { name: "id", in: "path", required: true, schema: { type: "string", format: "uuid" } }
    },
    schemas: {
      Thing: {
        type: "object",
        properties: {
          id: { type: "string", format: "uuid" },
          at: { type: "string", format: "date-time" },
          tags: { type: "array", items: { $ref: "#/components/schemas/Tag" } }
        },
        required: ["id", "at", "tags"],
        additionalProperties: false
      },
      Tag: { type: "string", enum: ["a", "b"] },
      NotFound: {
        type: "object",
        properties: { detail: { type: "string" } },
        required: ["detail"],
        additionalProperties: false
      }
    }
  }
}

const ops = operationsOf(doc)
const op = (id: string): Operation => {
  const found = ops.find((o) => o.id === id)
  assert.isDefined(found, id)
  return found!
}
const oracle = new ResponseOracle(doc)
/** The headers every answer here carries unless a test says otherwise: never stored, never sniffed. */
const headers = { "cache-control": "no-store", "x-content-type-options": "nosniff" }
const json = (status: number, body: unknown, contentType = "application/json"): Received => ({
  status,
  contentType,
  text: JSON.stringify(body),
  headers
})
const thing = { id: "00000000-0000-4000-8000-000000000001", at: "2026-07-01T00:00:00+00:00", tags: ["a"] }
const plain = { conditional: false }

describe("ResponseOracle (spec part 9: every response is the one /openapi.json documents)", () => {
  it("reads operations with their method, path, referenced parameters and responses", () => {
    assert.deepStrictEqual(
      ops.map((o) => `${o.method} ${o.path} ${o.id}`),
      ["GET /things/{id} things.get", "DELETE /things/{id} things.delete", "GET /export.csv export"]
    )
    assert.deepStrictEqual(op("things.get").parameters[0]?.name, "id")
  })

  it("accepts a documented status, content type and a body valid against the referenced schema", () => {
    assert.deepStrictEqual(oracle.check(op("things.get"), json(200, thing), plain), [])
    assert.deepStrictEqual(oracle.check(op("things.get"), json(404, { detail: "not found" }), plain), [])
    assert.deepStrictEqual(
      oracle.check(
        op("export"),
        { status: 200, contentType: "text/csv; charset=utf-8", text: "a,b\n", headers },
        plain
      ),
      []
    )
    assert.deepStrictEqual(
      oracle.check(op("things.delete"), { status: 204, contentType: undefined, text: "", headers }, plain),
      []
    )
  })

  it("refuses an undocumented status", () => {
    const problems = oracle.check(op("things.get"), json(418, { detail: "teapot" }), plain)
    assert.isTrue(
      problems.some((p) => p.startsWith("status 418 is not documented")),
      problems.join("; ")
    )
  })

  it("refuses every 5xx, documented or not", () => {
    const problems = oracle.check(op("things.get"), json(503, { detail: "down" }), plain)
    assert.deepStrictEqual(problems, ["server error 503"])
  })

  it("refuses a content type the operation does not document, and a missing charset it does", () => {
    assert.isNotEmpty(oracle.check(op("things.get"), json(200, thing, "text/plain"), plain))
    assert.isNotEmpty(
      oracle.check(op("export"), { status: 200, contentType: "text/csv", text: "a", headers }, plain)
    )
  })

  it("refuses a body that breaks the schema: extra key, wrong enum, bad uuid, impossible date", () => {
    for (const body of [
      { ...thing, extra: 1 },
      { ...thing, tags: ["c"] },
      { ...thing, id: "not-a-uuid" },
      { ...thing, at: "2026-02-30T00:00:00Z" },
      { id: thing.id }
    ]) {
      const problems = oracle.check(op("things.get"), json(200, body), plain)
      assert.isTrue(
        problems.some((p) => p.startsWith("body does not match the schema")),
        JSON.stringify(body)
      )
    }
  })

  it("refuses a 4xx whose body is not JSON or has no detail saying why", () => {
    assert.include(
      oracle.check(op("things.get"), { status: 404, contentType: undefined, text: "", headers }, plain),
      "404 without a JSON body whose detail says why"
    )
    assert.include(
      oracle.check(op("things.get"), json(404, { detail: "" }), plain),
      "404 without a JSON body whose detail says why"
    )
  })

  it("refuses a body on a status documented without one", () => {
    assert.isNotEmpty(oracle.check(op("things.delete"), json(204, { ok: true }), plain))
  })

  it("refuses a non-2xx answer that may be stored and any answer without nosniff; a 304 keeps the 200's caching", () => {
    const cacheable = { "cache-control": "public, max-age=60", "x-content-type-options": "nosniff" }
    const unstored404 = oracle.check(
      op("things.get"),
      { ...json(404, { detail: "not found" }), headers: cacheable },
      plain
    )
    assert.deepStrictEqual(unstored404, ["404 without Cache-Control: no-store (got public, max-age=60)"])
    assert.deepStrictEqual(
      oracle.check(
        op("things.get"),
        { ...json(404, { detail: "not found" }), headers: { "x-content-type-options": "nosniff" } },
        plain
      ),
      ["404 without Cache-Control: no-store (got undefined)"]
    )
    assert.deepStrictEqual(
      oracle.check(
        op("things.get"),
        { ...json(200, thing), headers: { "cache-control": "public, max-age=60" } },
        plain
      ),
      ["no X-Content-Type-Options: nosniff (got undefined)"]
    )
    assert.deepStrictEqual(
      oracle.check(op("things.get"), { ...json(200, thing), headers: cacheable }, plain),
      []
    )
    const revalidated: Received = { status: 304, contentType: undefined, text: "", headers: cacheable }
    assert.deepStrictEqual(oracle.check(op("export"), revalidated, { conditional: true }), [])
    assert.deepStrictEqual(
      oracle.check(op("export"), { ...revalidated, headers: {} }, { conditional: true }),
      ["no X-Content-Type-Options: nosniff (got undefined)"],
      "a 304 is held to nosniff too"
    )
    assert.deepStrictEqual(headerProblems({ status: 302, headers: cacheable }), [
      "302 without Cache-Control: no-store (got public, max-age=60)"
    ])
    assert.deepStrictEqual(
      headerProblems({
        status: 429,
        headers: { "cache-control": "private, no-store", "x-content-type-options": "nosniff" }
      }),
      [],
      "no-store among other directives"
    )
  })

  it("accepts an empty 304 to a conditional request only", () => {
    const notModified: Received = { status: 304, contentType: undefined, text: "", headers }
    assert.deepStrictEqual(oracle.check(op("export"), notModified, { conditional: true }), [])
    assert.isNotEmpty(oracle.check(op("export"), notModified, plain))
  })
})

describe("the campaign's numbers beyond a double", () => {
  it("every one of them parses to ±Infinity (a finite one would make the oracle refuse a correct 2xx)", () => {
    for (const n of NonFiniteNumbers) {
      const parsed = JSON.parse(`[${n}]`)[0] as number
      assert.isFalse(Number.isFinite(parsed), `${n.slice(0, 20)} parses to ${parsed}`)
    }
    // The largest double is finite, one order of magnitude past it is not: the edge the list keeps clear of.
    assert.isTrue(Number.isFinite(JSON.parse("1.7976931348623157e308")))
    assert.isFalse(Number.isFinite(JSON.parse("123456789e301")))
  })
})
