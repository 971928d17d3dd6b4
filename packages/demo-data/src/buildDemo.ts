/**
 * Writes the demo dataset to packages/demo-data/data/ (the JSON is committed):
 *
 *   node packages/demo-data/src/buildDemo.ts
 *
 * Deterministic: the same tables give byte-identical files, laid out as the
 * repository's formatter would, so a rebuild only shows real changes in a diff.
 */
import { readdirSync, rmSync, writeFileSync, mkdirSync } from "node:fs"
import { join } from "node:path"
import { DemoDataDir } from "./DemoDataDir.ts"
import { buildDemoFiles } from "./DemoDataset.ts"
import { formatJson } from "./DemoJson.ts"

/** The demo files as they are written: file name and exact text. */
export const renderDemoFiles = (): ReadonlyArray<{ readonly name: string; readonly text: string }> =>
  buildDemoFiles().map((f) => ({ name: f.name, text: formatJson(f.content) }))

export const writeDemoFiles = (dir: string = DemoDataDir): ReadonlyArray<string> => {
  mkdirSync(dir, { recursive: true })
  const files = renderDemoFiles()
  const keep = new Set(files.map((f) => f.name))
  // A file left from an earlier layout would still be imported (the importer reads the whole folder).
  for (const name of readdirSync(dir)) if (name.endsWith(".json") && !keep.has(name)) rmSync(join(dir, name))
  for (const f of files) writeFileSync(join(dir, f.name), f.text)
  return files.map((f) => f.name)
}

if (import.meta.main) {
  for (const name of writeDemoFiles()) console.log(`wrote ${join(DemoDataDir, name)}`)
}
