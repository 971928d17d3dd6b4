/**
 * docs/import-format.schema.json is generated, never edited: this test fails
 * the moment the committed file and the generator disagree, so the schema an
 * operator's editor uses can never drift from the decoder.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { importJsonSchema, importJsonSchemaText } from "../../src/import/ImportJsonSchema.ts"

const committedPath = join(import.meta.dirname, "..", "..", "..", "..", "docs", "import-format.schema.json")

const regenerate =
  'regenerate it from the repository root with: node -e \'import("./packages/domain/src/import/ImportJsonSchema.ts")' +
  ".then((m) => process.stdout.write(m.importJsonSchemaText()))' > docs/import-format.schema.json && " +
  "biome format --write docs/import-format.schema.json"

describe("ImportJsonSchema", () => {
  it("the committed docs/import-format.schema.json is exactly what the generator produces now", () => {
    const committed: unknown = JSON.parse(readFileSync(committedPath, "utf8"))
    assert.deepStrictEqual(
      committed,
      importJsonSchema(),
      `docs/import-format.schema.json is out of date: ${regenerate}`
    )
  })

  it("is a draft 2020-12 document rooted at ImportFile that refuses unknown keys, as the decoder does", () => {
    const doc = importJsonSchema() as {
      $schema: string
      $ref: string
      $defs: Record<string, { additionalProperties?: unknown; required?: ReadonlyArray<string> }>
    }
    assert.strictEqual(doc.$schema, "https://json-schema.org/draft/2020-12/schema")
    assert.strictEqual(doc.$ref, "#/$defs/ImportFile")
    assert.strictEqual(doc.$defs.ImportFile!.additionalProperties, false)
    assert.deepStrictEqual(doc.$defs.ImportFile!.required, ["format"])
    assert.strictEqual(importJsonSchemaText().endsWith("}\n"), true)
  })
})
