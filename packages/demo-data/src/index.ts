/**
 * @ratings/demo-data: the demo dataset (committed as JSON under `data/`, built
 * from the tables in this package by `buildDemo.ts`) and the deterministic
 * scale-data generator behind `ratings demo generate` and the benchmarks, and
 * the reading of import files (a file or a folder of them) that `ratings
 * import`, the demo load and the benchmarks use.
 */
export { DemoDataDir } from "./DemoDataDir.ts"
export { formatIssues, type ImportOutcome, importFilesOf, importPath, readSources } from "./ImportFiles.ts"
export {
  DefaultEntitiesPerFile,
  type GeneratedFile,
  type GenerateOptions,
  generateDataset,
  renderDatasetFile,
  typeCounts,
  writeDataset
} from "./generate.ts"
