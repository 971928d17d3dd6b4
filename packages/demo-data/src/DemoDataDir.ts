/**
 * Where the committed demo dataset lives: the import-format JSON files that
 * `buildDemo.ts` writes and that `ratings serve` loads on the first start of
 * the embedded default. A path only, so reading it loads none of the tables.
 */
import { join } from "node:path"

export const DemoDataDir = join(import.meta.dirname, "..", "data")
