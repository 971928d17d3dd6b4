import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import * as Model from "../../src/model/index.ts"

describe("model index", () => {
  it("every named schema reaches the OpenAPI document as a definition with a description", () => {
    let named = 0
    for (const [exportName, value] of Object.entries(Model)) {
      if (!Schema.isSchema(value)) continue
      const doc = Schema.toJsonSchemaDocument(value)
      const ref = (doc.schema as { readonly $ref?: string }).$ref
      if (ref === undefined) continue
      named++
      const definition = doc.definitions[ref.replace("#/$defs/", "")] as { readonly description?: unknown }
      assert.isString(definition.description, exportName)
    }
    // Catches the trap of annotating an identifier before a check, which drops the definition.
    assert.isAtLeast(named, 30)
  })
})
