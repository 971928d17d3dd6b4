/**
 * The JSON Schema (draft 2020-12) of the import format, generated from the
 * domain schemas so that it cannot disagree with the decoder. It is committed
 * as docs/import-format.schema.json, and a test fails when the committed file
 * is not what this module produces; the test's failure message gives the
 * command that regenerates the file (write `importJsonSchemaText()` to it,
 * then let Biome format it).
 *
 * The schema is for editors and preliminary checks: the rules that look
 * across values and files (docs/import-format.md) are the importer's alone.
 */
import { JsonSchema, Schema } from "effect"
import { ImportDecodeOptions, ImportFile } from "./ImportFile.ts"

/** The document: `$schema`, the root schema and its `$defs`. */
export const importJsonSchema = (): JsonSchema.JsonSchema => {
  const doc = Schema.toJsonSchemaDocument(ImportFile, {
    onExcessProperty: ImportDecodeOptions.onExcessProperty
  })
  return {
    $schema: JsonSchema.META_SCHEMA_URI_DRAFT_2020_12,
    ...doc.schema,
    $defs: doc.definitions
  }
}

/** The document as the file holds it. */
export const importJsonSchemaText = (): string => `${JSON.stringify(importJsonSchema(), null, 2)}\n`
