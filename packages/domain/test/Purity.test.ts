/**
 * The domain package is embeddable: it imports `effect` and nothing else at
 * runtime (issue 2; architecture "packages/domain"). These tests fail the
 * moment a dependency, a node: import or a bare import of anything else lands.
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { assert, describe, it } from "@effect/vitest"

const root = join(import.meta.dirname, "..")

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : []
  })

const specifiers = (text: string): string[] => {
  const found: string[] = []
  const re =
    /(?:^|\s)(?:import|export)\s[^"';]*?from\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)|^\s*import\s*["']([^"']+)["']/gm
  for (const m of text.matchAll(re)) found.push((m[1] ?? m[2] ?? m[3])!)
  return found
}

describe("packages/domain purity", () => {
  it("package.json declares effect as its only runtime dependency, a peer the installing tool provides", () => {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"))
    assert.deepStrictEqual(Object.keys(pkg.dependencies ?? {}), [])
    assert.deepStrictEqual(Object.keys(pkg.peerDependencies ?? {}), ["effect"])
    assert.deepStrictEqual(Object.keys(pkg.optionalDependencies ?? {}), [])
    // The workspace itself installs effect for development; nothing else may sit beside it.
    assert.deepStrictEqual(Object.keys(pkg.devDependencies ?? {}), ["effect"])
  })

  it("source files import only effect and relative modules", () => {
    const files = sourceFiles(join(root, "src"))
    assert.isAbove(files.length, 10)
    const offenders: string[] = []
    for (const file of files) {
      for (const spec of specifiers(readFileSync(file, "utf8"))) {
        const ok =
          spec.startsWith("./") || spec.startsWith("../") || spec === "effect" || spec.startsWith("effect/")
        const platform = /^effect\/(http|http-api|sql|unstable)/.test(spec)
        if (!ok || platform) offenders.push(`${file.slice(root.length + 1)} imports ${spec}`)
      }
    }
    assert.deepStrictEqual(offenders, [])
  })

  it("the import scanner sees the forms it must refuse", () => {
    assert.deepStrictEqual(
      specifiers(
        `import { a } from "node:fs"\nexport * from "pg"\nconst x = await import("undici")\nimport "side-effect"`
      ),
      ["node:fs", "pg", "undici", "side-effect"]
    )
  })

  it("source files use no Node globals", () => {
    const offenders = sourceFiles(join(root, "src")).filter((f) =>
      /\b(process\.|Buffer\.|require\(|__dirname)/.test(readFileSync(f, "utf8"))
    )
    assert.deepStrictEqual(offenders, [])
  })

  it("the shared contract suites import only effect, @effect/vitest, fast-check and the domain: no database", () => {
    const files = sourceFiles(join(root, "test", "support", "contract"))
    assert.isAbove(files.length, 10)
    const offenders: string[] = []
    for (const file of files) {
      for (const spec of specifiers(readFileSync(file, "utf8"))) {
        const relative = spec.startsWith("./") || spec.startsWith("../")
        const ok = relative
          ? resolve(dirname(file), spec).startsWith(root + "/")
          : spec === "effect" ||
            (spec.startsWith("effect/") && !/^effect\/(http|http-api|sql|unstable)/.test(spec)) ||
            spec === "@effect/vitest" ||
            spec === "fast-check"
        if (!ok) offenders.push(`${file.slice(root.length + 1)} imports ${spec}`)
      }
    }
    assert.deepStrictEqual(offenders, [])
  })

  it("the domain carries no hash implementation of its own: hashing is the Signer adapter's", () => {
    // SHA-256's first initial hash word and first round constant: any hand-written SHA-2 holds them.
    const offenders = sourceFiles(join(root, "src")).filter((f) =>
      /0x6a09e667|0x428a2f98|1779033703|1116352408/i.test(readFileSync(f, "utf8"))
    )
    assert.deepStrictEqual(offenders, [])
  })
})
