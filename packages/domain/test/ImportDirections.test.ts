/**
 * The domain's folders import one way (issue 14, "no import cycles"): the
 * model names things, the rules (scoring, access, incidents, quantum,
 * webhooks) reason about them, the ports store them, and the use cases
 * (import, services) drive it all. A folder imports only its own files and
 * the folders below it, and no chain of imports comes back to where it
 * started. Type-only imports count: a model that names a service's type
 * still points the wrong way.
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, normalize, relative } from "node:path"
import { assert, describe, it } from "@effect/vitest"

/** What each folder of `src` may import besides itself (`""` is the package index at the root). */
const Allowed: { readonly [folder: string]: ReadonlyArray<string> } = {
  model: [],
  scoring: ["model"],
  access: ["model", "scoring"],
  incidents: ["model", "scoring", "access"],
  quantum: ["model", "scoring", "access"],
  webhooks: ["model", "scoring", "access"],
  ports: ["model", "scoring", "access", "incidents", "quantum", "webhooks"],
  import: ["model", "scoring", "access", "incidents", "quantum", "webhooks", "ports"],
  services: ["model", "scoring", "access", "incidents", "quantum", "webhooks", "ports", "import"],
  // The public entry points of the published package: re-exports of the pure rules and the import format.
  entry: ["model", "scoring", "import"],
  "": [
    "model",
    "scoring",
    "access",
    "incidents",
    "quantum",
    "webhooks",
    "ports",
    "import",
    "services",
    "entry"
  ]
}

/** Source files by path relative to `src` ("model/Incident.ts"). */
type Tree = ReadonlyMap<string, string>

const srcRoot = join(import.meta.dirname, "..", "src")

const readTree = (dir: string): Map<string, string> => {
  const tree = new Map<string, string>()
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name)
      if (statSync(path).isDirectory()) walk(path)
      else if (path.endsWith(".ts"))
        tree.set(relative(dir, path).split("\\").join("/"), readFileSync(path, "utf8"))
    }
  }
  walk(dir)
  return tree
}

const specifiers = (text: string): string[] => {
  const found: string[] = []
  const re =
    /(?:^|\s)(?:import|export)\s[^"';]*?from\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)|^\s*import\s*["']([^"']+)["']/gm
  for (const m of text.matchAll(re)) found.push((m[1] ?? m[2] ?? m[3])!)
  return found
}

/** The files of the tree a file imports (relative imports only; `effect` is outside the tree). */
const importsOf = (tree: Tree, file: string): string[] =>
  specifiers(tree.get(file) ?? "")
    .filter((spec) => spec.startsWith("./") || spec.startsWith("../"))
    .map((spec) =>
      normalize(join(dirname(file), spec))
        .split("\\")
        .join("/")
    )

const folderOf = (file: string): string => (file.includes("/") ? file.slice(0, file.indexOf("/")) : "")

/** Every import that points a way its folder may not go, as "from -> to". */
export const forbiddenImports = (tree: Tree): string[] => {
  const offenders: string[] = []
  for (const file of tree.keys()) {
    const from = folderOf(file)
    for (const target of importsOf(tree, file)) {
      const to = folderOf(target)
      if (target.startsWith("..")) offenders.push(`${file} -> ${target} (outside src)`)
      else if (to !== from && !(Allowed[from] ?? []).includes(to)) offenders.push(`${file} -> ${target}`)
    }
  }
  return offenders
}

/** The import cycles of the tree, each as the files around it (strongly connected components of two or more, or a file importing itself). */
export const importCycles = (tree: Tree): string[][] => {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const cycles: string[][] = []
  let next = 0
  const visit = (file: string) => {
    index.set(file, next)
    low.set(file, next++)
    stack.push(file)
    onStack.add(file)
    for (const target of importsOf(tree, file).filter((t) => tree.has(t))) {
      if (!index.has(target)) {
        visit(target)
        low.set(file, Math.min(low.get(file)!, low.get(target)!))
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!))
    }
    if (low.get(file) !== index.get(file)) return
    const component: string[] = []
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      component.push(member)
    } while (member !== file)
    if (component.length > 1 || importsOf(tree, file).includes(file)) cycles.push(component.sort())
  }
  for (const file of tree.keys()) if (!index.has(file)) visit(file)
  return cycles
}

describe("domain import directions", () => {
  const tree = readTree(srcRoot)

  it("every folder of src has a rule (a new folder must be placed in the order)", () => {
    assert.isAbove(tree.size, 50)
    const folders = new Set([...tree.keys()].map(folderOf))
    assert.deepStrictEqual(
      [...folders].filter((f) => !(f in Allowed)),
      []
    )
  })

  it("src imports only downwards: model <- scoring <- access <- rules <- ports <- import <- services", () => {
    assert.deepStrictEqual(forbiddenImports(tree), [])
  })

  it("src has no import cycle between its files", () => {
    assert.deepStrictEqual(importCycles(tree), [])
  })

  it("a model file importing a rule, a port or a service is refused, type-only imports included", () => {
    const synthetic = new Map([
      ["model/Incident.ts", `import { normaliseName } from "../incidents/IncidentMatching.ts"`],
      ["model/AlertRule.ts", `import type { X } from "../webhooks/WebhookTargetPolicy.ts"`],
      ["import/ImportPlan.ts", `import type { PublishRequest } from "../services/Publisher.ts"`],
      ["webhooks/WebhookSignature.ts", `import type { SignerShape } from "../ports/Signer.ts"`],
      ["incidents/IncidentMatching.ts", `import { Schema } from "effect"`]
    ])
    assert.deepStrictEqual(forbiddenImports(synthetic), [
      "model/Incident.ts -> incidents/IncidentMatching.ts",
      "model/AlertRule.ts -> webhooks/WebhookTargetPolicy.ts",
      "import/ImportPlan.ts -> services/Publisher.ts",
      "webhooks/WebhookSignature.ts -> ports/Signer.ts"
    ])
  })

  it("the allowed directions pass: a service over ports, rules and the model; a port over a rule", () => {
    const synthetic = new Map([
      [
        "services/Publisher.ts",
        `import { a } from "../ports/Store.ts"\nimport { b } from "../scoring/Grade.ts"`
      ],
      [
        "ports/Store.ts",
        `export { c } from "../webhooks/Retry.ts"\nimport { d } from "./memory/StoreMemory.ts"`
      ],
      ["ports/memory/StoreMemory.ts", `import { e } from "../../model/Thing.ts"`],
      ["index.ts", `export * from "./services/Publisher.ts"`]
    ])
    assert.deepStrictEqual(forbiddenImports(synthetic), [])
    assert.deepStrictEqual(importCycles(synthetic), [])
  })

  it("a cycle is found, within a folder or across folders, and so is a file importing itself", () => {
    const synthetic = new Map([
      ["model/Incident.ts", `import { a } from "../incidents/SourceIndependence.ts"`],
      ["incidents/SourceIndependence.ts", `import type { IncidentSource } from "../model/Incident.ts"`],
      ["ports/A.ts", `import { b } from "./B.ts"`],
      ["ports/B.ts", `import { c } from "./C.ts"`],
      ["ports/C.ts", `export * from "./A.ts"`],
      ["ports/D.ts", `import { d } from "./D.ts"`],
      ["ports/E.ts", `import { a } from "./A.ts"`]
    ])
    assert.sameDeepMembers(importCycles(synthetic), [
      ["incidents/SourceIndependence.ts", "model/Incident.ts"],
      ["ports/A.ts", "ports/B.ts", "ports/C.ts"],
      ["ports/D.ts"]
    ])
  })

  it("port files hold the service shape, not an in-memory implementation (those live in ports/memory/)", () => {
    const ports = [...tree].filter(([file]) => /^ports\/[^/]+\.ts$/.test(file))
    assert.isAbove(ports.length, 10)
    const offenders = ports
      .filter(([, text]) => /\blayerMemory|\bRef\.make\b|new Map</.test(text))
      .map(([file]) => file)
    assert.deepStrictEqual(offenders, [])
    const memory = [...tree.keys()].filter((file) => file.startsWith("ports/memory/"))
    assert.includeMembers(memory, [
      "ports/memory/DeliveryOutboxMemory.ts",
      "ports/memory/ScorecardRepositoryMemory.ts"
    ])
  })
})
