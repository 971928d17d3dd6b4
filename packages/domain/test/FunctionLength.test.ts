/**
 * No function in `src` is longer than about 80 lines (issue 14, point 4): a
 * repository or a service is a set of named functions, not one closure. The
 * check parses every source file of packages/*\/src and apps/server/src with
 * the TypeScript-aware parser vitest itself runs on (oxc, through vite), and
 * measures each function, function expression, method and arrow from the first
 * to the last line of its body. No file is exempt.
 */
import { readFileSync } from "node:fs"
import { relative } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { parseSync } from "vite"
import { repo, sourceFiles, sourceRoots } from "./support/SourceFiles.ts"

const MaxLines = 80

interface Node {
  readonly type: string
  readonly start: number
  readonly end: number
  readonly body?: unknown
}

const isNode = (value: unknown): value is Node =>
  typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string"

const FunctionTypes = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"])

/** Each function of `code` that spans more than `max` lines, as `line N: M lines`. */
export const longFunctions = (fileName: string, code: string, max: number): Array<string> => {
  const lineStarts = [0]
  for (let i = 0; i < code.length; i++) if (code[i] === "\n") lineStarts.push(i + 1)
  const lineOf = (offset: number) => {
    let lo = 0
    let hi = lineStarts.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if (lineStarts[mid]! <= offset) lo = mid
      else hi = mid - 1
    }
    return lo + 1
  }
  const found: Array<string> = []
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item)
      return
    }
    if (typeof value !== "object" || value === null) return
    if (isNode(value) && FunctionTypes.has(value.type) && isNode(value.body)) {
      const lines = lineOf(value.body.end) - lineOf(value.body.start) + 1
      if (lines > max) found.push(`line ${lineOf(value.start)}: ${lines} lines`)
    }
    for (const child of Object.values(value)) if (typeof child === "object") visit(child)
  }
  const parsed = parseSync(fileName, code)
  if (parsed.errors.length > 0) throw new Error(`${fileName}: ${parsed.errors[0]?.message}`)
  visit(parsed.program)
  return found
}

describe("function length", () => {
  it("no function in packages/*/src or apps/server/src is longer than 80 lines", () => {
    const files = sourceRoots().flatMap(sourceFiles)
    assert.isAbove(files.length, 50)
    const offenders = files.flatMap((file) => {
      const path = relative(repo, file).split("\\").join("/")
      return longFunctions(file, readFileSync(file, "utf8"), MaxLines).map((where) => `${path} ${where}`)
    })
    assert.deepStrictEqual(offenders, [])
  })

  it("the measure sees functions, function expressions, methods and arrows, nested or not", () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  const x${i} = ${i}`).join("\n")
    const code = [
      `function a() {\n${body(5)}\n}`,
      `const b = () => {\n${body(5)}\n}`,
      `const c = Effect.gen(function* () {\n  const inner = (y: number) => {\n${body(3)}\n  }\n${body(2)}\n})`,
      `class D {\n  m(): void {\n${body(5)}\n  }\n}`,
      `const e = (z: string) => \`\n${"line\n".repeat(6)}\``,
      `function short() {\n  return 1\n}`
    ].join("\n")
    assert.deepStrictEqual(longFunctions("sample.ts", code, 5), [
      "line 1: 7 lines",
      "line 8: 7 lines",
      "line 15: 9 lines",
      "line 25: 7 lines",
      "line 33: 8 lines"
    ])
  })
})
