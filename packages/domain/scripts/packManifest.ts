/**
 * The manifest as published. The workspace resolves `@ratings/domain/<module>`
 * to src/ under the `@ratings/source` export condition, which a consumer never
 * sets; in a tarball those entries would only answer ERR_PACKAGE_PATH_NOT_EXPORTED.
 * `prepack` (narrow) keeps the workspace's package.json aside and writes one
 * whose exports are what the tarball ships; `postpack` (restore) puts it back.
 * Run in the package's folder: `node scripts/packManifest.ts narrow|restore`.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { join } from "node:path"

const SourceCondition = "@ratings/source"

type Target = string | { readonly [condition: string]: string }

/** Each entry without the source condition; entries that resolve only under it are dropped. */
const publishedExports = (exports: { readonly [path: string]: Target }): Record<string, Target> => {
  const out: Record<string, Target> = {}
  for (const [path, target] of Object.entries(exports)) {
    if (typeof target === "string") {
      out[path] = target
      continue
    }
    const rest = Object.fromEntries(
      Object.entries(target).filter(([condition]) => condition !== SourceCondition)
    )
    if (Object.keys(rest).length > 0) out[path] = rest
  }
  return out
}

const manifest = join(process.cwd(), "package.json")
const kept = join(process.cwd(), ".package.workspace.json")

const restore = (): void => {
  if (existsSync(kept)) renameSync(kept, manifest)
}

const narrow = (): void => {
  restore()
  const text = readFileSync(manifest, "utf8")
  const pkg = JSON.parse(text)
  writeFileSync(kept, text)
  writeFileSync(manifest, `${JSON.stringify({ ...pkg, exports: publishedExports(pkg.exports) }, null, 2)}\n`)
}

const step = process.argv[2]
if (step === "narrow") narrow()
else if (step === "restore") restore()
else {
  process.stderr.write("usage: node scripts/packManifest.ts narrow|restore\n")
  process.exitCode = 2
}
