/**
 * The examples of /openapi.json on a server with the demo dataset imported:
 * every path and query parameter, request body and response has one (an
 * error response may take its body schema's); each validates against its
 * schema in the document (ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses it);
 * and every documented GET path, its parameters filled with their examples,
 * answers 200 to a key of the tier it needs (an Enterprise key, which every
 * tier's route takes).
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { freePort } from "@ratings/adapters-sql/EmbeddedPostgres"
import { DemoDataDir } from "@ratings/demo-data"
import { Ajv2020 } from "ajv/dist/2020.js"
import { Effect } from "effect"
import type { ChildProcess } from "node:child_process"
import { exited, runCli, scratchDatabase, startCli, waitForOutput } from "./CliHarness.ts"

// biome-ignore lint/suspicious/noExplicitAny: the document is walked as plain JSON
type Json = any

let db: Awaited<ReturnType<typeof scratchDatabase>>
let server: ChildProcess
let base: string
let key: string
let doc: Json

beforeAll(async () => {
  db = await scratchDatabase()
  const imported = await runCli(["import", DemoDataDir], { DATABASE_URL: db.url })
  assert.strictEqual(imported.code, 0, imported.stderr)
  const created = await runCli(["keys", "create", "--tier", "enterprise", "--name", "docs"], {
    DATABASE_URL: db.url
  })
  key = created.stdout.match(/rk_\S+/)![0]
  const port = await Effect.runPromise(freePort)
  server = startCli(["serve"], { PORT: String(port), DATABASE_URL: db.url })
  await waitForOutput(server, /ratings service listening on/, 60_000)
  base = `http://127.0.0.1:${port}`
  doc = await (await fetch(`${base}/openapi.json`)).json()
}, 180_000)

afterAll(async () => {
  server?.kill("SIGTERM")
  if (server !== undefined) await exited(server)
  await db?.drop()
}, 60_000)

interface Example {
  readonly where: string
  readonly schema: Json
  readonly example: unknown
}

/** Every example of the document, with the schema it must satisfy; `missing` lists what has none. */
const examplesOf = (document: Json) => {
  const found: Array<Example> = []
  const missing: Array<string> = []
  for (const [path, methods] of Object.entries(document.paths as Json))
    for (const [method, op] of Object.entries(methods as Json) as Array<[string, Json]>) {
      const at = `${method.toUpperCase()} ${path}`
      for (const p of op.parameters ?? []) {
        if (p.in === "header") continue
        if (!("example" in p)) missing.push(`${at} parameter ${p.name}`)
        else found.push({ where: `${at} parameter ${p.name}`, schema: p.schema, example: p.example })
      }
      const bodies = [
        ...Object.entries(op.requestBody?.content ?? {}).map(([type, media]) => [`request ${type}`, media]),
        ...Object.entries(op.responses as Json)
          .filter(([status]) => status.startsWith("2"))
          .flatMap(([status, r]) =>
            Object.entries((r as Json).content ?? {}).map(([type, media]) => [`${status} ${type}`, media])
          )
      ] as Array<[string, Json]>
      for (const [what, media] of bodies) {
        if (!("example" in media)) missing.push(`${at} ${what}`)
        else found.push({ where: `${at} ${what}`, schema: media.schema, example: media.example })
      }
    }
  return { found, missing }
}

const validatorFor = (document: Json) => {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })
  ajv.addSchema({ $id: "openapi", components: document.components }, "openapi")
  return (schema: Json) =>
    ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/')))
}

describe("the OpenAPI document's examples, from the demo dataset", () => {
  it("every path and query parameter, request body and success response has an example", () => {
    const { found, missing } = examplesOf(doc)
    assert.deepStrictEqual(missing, [])
    assert.isAbove(found.length, 200)
  })

  it("each example validates against its schema in the document", () => {
    const compile = validatorFor(doc)
    const failures: Array<string> = []
    for (const { where, schema, example } of examplesOf(doc).found) {
      const validate = compile(schema)
      if (!validate(example)) failures.push(`${where}: ${JSON.stringify(validate.errors?.slice(0, 2))}`)
    }
    assert.deepStrictEqual(failures, [])
  })

  it("every error response has an example (its own, or its body schema's), each valid against the schema", () => {
    const compile = validatorFor(doc)
    const component = (ref: string): Json => doc.components.schemas[ref.split("/").at(-1)!]
    /** The examples a body schema carries: its own, or those of every alternative it refers to. */
    const examplesOfSchema = (schema: Json): Array<unknown> | undefined =>
      schema.examples ??
      (schema.$ref !== undefined
        ? examplesOfSchema(component(schema.$ref))
        : schema.anyOf?.every((s: Json) => examplesOfSchema(s) !== undefined)
          ? schema.anyOf.flatMap((s: Json) => examplesOfSchema(s))
          : undefined)
    const missing: Array<string> = []
    const failures: Array<string> = []
    let checked = 0
    for (const [path, methods] of Object.entries(doc.paths as Json))
      for (const [method, op] of Object.entries(methods as Json) as Array<[string, Json]>)
        for (const [status, response] of Object.entries(op.responses as Json)) {
          if (status.startsWith("2")) continue
          for (const media of Object.values((response as Json).content ?? {}) as Array<Json>) {
            const examples = "example" in media ? [media.example] : examplesOfSchema(media.schema)
            const at = `${method.toUpperCase()} ${path} ${status}`
            if (examples === undefined || examples.length === 0) missing.push(at)
            for (const example of examples ?? []) {
              checked++
              const validate = compile(media.schema)
              if (!validate(example)) failures.push(`${at}: ${JSON.stringify(validate.errors?.slice(0, 2))}`)
            }
          }
        }
    assert.deepStrictEqual(missing, [])
    assert.deepStrictEqual(failures, [])
    assert.isAbove(checked, 400)
  })

  it("the validation can fail: an example that breaks its schema is refused", () => {
    const compile = validatorFor(doc)
    const detail =
      doc.paths["/api/v1/protocols/{identifier}"].get.responses["200"].content["application/json"]
    assert.isTrue(compile(detail.schema)(detail.example))
    assert.isFalse(compile(detail.schema)({ ...detail.example, slug: "Not A Slug" }))
    const limit = doc.paths["/api/v1/protocols"].get.parameters.find((p: Json) => p.name === "limit")
    assert.isFalse(compile(limit.schema)(500))
  })

  it("every documented GET path with its examples filled in answers 200 on the demo", async () => {
    // Only routes naming the caller's own records (an alert rule) have examples no other account can see.
    const ownRecords = ["/api/v1/alert-rules/{rule_id}/deliveries"]
    const failures: Array<string> = []
    let tried = 0
    for (const [path, methods] of Object.entries(doc.paths as Json)) {
      const op = (methods as Json).get
      if (op === undefined || ownRecords.includes(path)) continue
      const parameters: Array<Json> = op.parameters ?? []
      const filled = path.replace(/\{([^}]+)\}/g, (_, name: string) =>
        encodeURIComponent(String(parameters.find((p) => p.in === "path" && p.name === name)!.example))
      )
      const query = new URLSearchParams()
      for (const p of parameters.filter((p) => p.in === "query"))
        for (const value of Array.isArray(p.example) ? p.example : [p.example])
          query.append(p.name, String(value))
      const url = `${base}${filled}${query.size > 0 ? `?${query}` : ""}`
      const tier = op["x-required-tier"]
      const headers: Record<string, string> =
        tier === undefined || tier === "anonymous" ? {} : { authorization: `Bearer ${key}` }
      const r = await fetch(url, { headers })
      tried++
      if (r.status !== 200) failures.push(`${url}: ${r.status} ${await r.text()}`)
      else await r.arrayBuffer()
    }
    assert.deepStrictEqual(failures, [])
    assert.isAbove(tried, 65)
  }, 120_000)
})
