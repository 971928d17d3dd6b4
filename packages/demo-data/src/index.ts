/**
 * @ratings/demo-data: the demo dataset (committed as JSON under `data/`, built
 * from the tables in this package by `buildDemo.ts`) and the deterministic
 * scale-data generator behind `ratings demo generate` and the benchmarks.
 */
export { DemoDataDir } from "./DemoDataDir.ts"
export {
  DefaultEntitiesPerFile,
  type GeneratedFile,
  type GenerateOptions,
  generateDataset,
  renderDatasetFile,
  typeCounts,
  writeDataset
} from "./generate.ts"
