/**
 * A source file is a size a reader can hold: no file of packages/*\/src or
 * apps/server/src is over 400 lines (demo-data's src, which is data, is
 * exempt), and a module header (the first doc comment, before the imports)
 * says what the module is for in at most 12 lines; detail belongs on the
 * functions it describes, or in docs/.
 */
import { readFileSync } from "node:fs"
import { relative } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { repo, sourceFiles, sourceRoots } from "./support/SourceFiles.ts"

const MaxFileLines = 400
const MaxHeaderLines = 12

/** Demo data is data: its src is exempt from the size rule (not from the header rule). */
const DemoData = "packages/demo-data/src/"

/** Each source file, by its path from the repository's root, with its text. */
const sources = (): Array<{ readonly path: string; readonly code: string }> =>
  sourceRoots()
    .flatMap(sourceFiles)
    .map((file) => ({ path: relative(repo, file).split("\\").join("/"), code: readFileSync(file, "utf8") }))

/** The number of lines of `code`, as `wc -l` counts them for a file that ends in a newline. */
export const lineCount = (code: string): number => code.split("\n").length - (code.endsWith("\n") ? 1 : 0)

/**
 * The lines of the module header of `code`: its first doc comment among the
 * comments before any code (after a shebang), 0 when there is none.
 */
export const headerLines = (code: string): number => {
  const leading = /^(?:#![^\n]*\n)?(?:\s+|\/\/[^\n]*|\/\*(?!\*)[\s\S]*?\*\/)*(\/\*\*[\s\S]*?\*\/)?/.exec(code)
  const header = leading?.[1]
  return header === undefined ? 0 : header.split("\n").length
}

const overSize = ({ path, code }: { path: string; code: string }): boolean =>
  !path.startsWith(DemoData) && lineCount(code) > MaxFileLines

const longHeader = ({ code }: { code: string }): boolean => headerLines(code) > MaxHeaderLines

describe("file shape", () => {
  it("the measures count a file's lines and its first doc comment before the code", () => {
    assert.strictEqual(lineCount("a\nb\n"), 2)
    assert.strictEqual(lineCount("a\nb"), 2)
    const header = (n: number) => `/**\n${" * line\n".repeat(n - 2)} */\n`
    assert.strictEqual(headerLines(`${header(13)}import { a } from "a"\n`), 13)
    assert.strictEqual(headerLines(`#!/usr/bin/env node\n${header(5)}const a = 1\n`), 5)
    assert.strictEqual(headerLines(`// note\n/* licence */\n\n${header(4)}const a = 1\n`), 4)
    assert.strictEqual(headerLines(`import { a } from "a"\n${header(20)}const b = a\n`), 0)
    assert.strictEqual(headerLines('export * from "./a.ts"\n'), 0)
  })

  it("no source file is over 400 lines outside demo data", () => {
    const files = sources()
    assert.isAbove(files.length, 50)
    const offenders = files.filter(overSize).map((file) => `${file.path}: ${lineCount(file.code)} lines`)
    assert.deepStrictEqual(offenders, [])
  })

  it("module headers are at most 12 lines", () => {
    const offenders = sources()
      .filter(longHeader)
      .map((file) => `${file.path}: a header of ${headerLines(file.code)} lines`)
    assert.deepStrictEqual(offenders, [])
  })
})
