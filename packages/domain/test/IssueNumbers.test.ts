/**
 * Source says what a thing is for and why; its history (which issue asked
 * for it) is git's. No source file of packages/*\/src, apps/server/src or
 * bench/*.ts names an issue by number (tests may: they are named after the
 * issue points they show).
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative } from "node:path"
import { assert, describe, it } from "@effect/vitest"

const repo = join(import.meta.dirname, "..", "..", "..")

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sourceFiles(path) : /\.tsx?$/.test(name) ? [path] : []
  })

const roots = (): Array<string> => [
  ...readdirSync(join(repo, "packages"))
    .map((name) => join(repo, "packages", name, "src"))
    .filter((dir) => statSync(dir, { throwIfNoEntry: false })?.isDirectory() === true),
  join(repo, "apps", "server", "src")
]

const benchFiles = (): Array<string> =>
  readdirSync(join(repo, "bench"))
    .filter((name) => name.endsWith(".ts"))
    .map((name) => join(repo, "bench", name))

/** `issue 15`, `Issue 15's`, `issues 6 and 7`, `#15` after "issue". */
const IssueNumber = /\bissues?\s+#?\d+/i

/** Each line of `code` that names an issue by number, as `line N: text`. */
export const issueMentions = (code: string): Array<string> =>
  code.split("\n").flatMap((line, i) => (IssueNumber.test(line) ? [`line ${i + 1}: ${line.trim()}`] : []))

describe("source comments", () => {
  it("the check finds an issue number in a comment and in a string, and nothing in ordinary text", () => {
    assert.deepStrictEqual(issueMentions("/** The lane (issue 15): fast. */\nconst a = 1"), [
      "line 1: /** The lane (issue 15): fast. */"
    ])
    assert.strictEqual(issueMentions('log("targets (Issues 6 and 7)")').length, 1)
    assert.deepStrictEqual(issueMentions("// an issue with the store; 15 retries"), [])
  })

  it("no source file names an issue by number: history belongs in git", () => {
    const offenders = [...roots().flatMap(sourceFiles), ...benchFiles()].flatMap((file) =>
      issueMentions(readFileSync(file, "utf8")).map((where) => `${relative(repo, file)} ${where}`)
    )
    assert.deepStrictEqual(offenders, [])
  })
})
