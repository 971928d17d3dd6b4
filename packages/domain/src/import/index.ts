/**
 * The import format and its rules: schemas of the files, decoding, the
 * validation that runs before anything is written, the plan that `Importer`
 * applies, and the JSON Schema of the format.
 */
export * from "./ImportAnswerGuard.ts"
export * from "./ImportAnswerIds.ts"
export * from "./IncidentReportFile.ts"
export * from "./ImportCatalogue.ts"
export * from "./ImportDecode.ts"
export * from "./ImportFile.ts"
export * from "./ImportIdFill.ts"
export * from "./ImportIdMatch.ts"
export * from "./ImportIds.ts"
export * from "./ImportIssue.ts"
export * from "./ImportJsonSchema.ts"
export * from "./ImportJsonText.ts"
export * from "./ImportPlan.ts"
export * from "./ImportRemovals.ts"
export * from "./ImportReplay.ts"
export * from "./ImportStoreView.ts"
export * from "./ImportStringPool.ts"
export * from "./ImportValidation.ts"
