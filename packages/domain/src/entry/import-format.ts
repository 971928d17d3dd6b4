/**
 * `@ratings/domain/import-format`: the schemas of the files `ratings import`
 * reads (docs/import-format.md), so another tool can produce or check them,
 * and the same format as JSON Schema. Validation against a store stays inside
 * the service.
 */
export {
  ImportDecodeOptions,
  ImportDependency,
  ImportEntity,
  ImportEntityRef,
  ImportEvidence,
  ImportFile,
  ImportFormatVersion,
  ImportHistory,
  ImportPublication,
  ImportQuantumSnapshot,
  ImportScorecard
} from "../import/ImportFile.ts"
export { formatImportIssue, ImportIssue, jsonPath } from "../import/ImportIssue.ts"
export { importJsonSchema, importJsonSchemaText } from "../import/ImportJsonSchema.ts"
