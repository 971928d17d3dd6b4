/**
 * A clean install prints nothing alarming: npm reads `loglevel=error` from the
 * repository's .npmrc (a machine whose own Node is older than 22.19 would
 * otherwise print an EBADENGINE warning per package needing Node 22), and
 * every package of the lockfile with an install script is approved in
 * package.json's allowScripts, so that npm neither lists it as unreviewed
 * nor (from npm 12) skips its script (the `node` package's puts Node 24 in
 * node_modules/.bin).
 */
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"

const root = join(import.meta.dirname, "..", "..", "..")
const json = (path: string) => JSON.parse(readFileSync(join(root, path), "utf8"))

describe("a clean install prints nothing alarming", () => {
  it("npm's log level in the repository is error", () => {
    const env = { ...process.env }
    for (const name of Object.keys(env)) if (/^npm_config_loglevel$/i.test(name)) delete env[name]
    const level = execFileSync("npm", ["config", "get", "loglevel"], { cwd: root, env, encoding: "utf8" })
    assert.strictEqual(level.trim(), "error")
  })

  it("every package of the lockfile with an install script is approved in allowScripts", () => {
    const lock = json("package-lock.json") as {
      packages: Record<string, { hasInstallScript?: boolean }>
    }
    const withScripts = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript === true)
      .map(([path]) => path.replace(/^.*node_modules\//, ""))
    assert.include(withScripts, "node", "the lockfile lists install scripts")
    const allowed = json("package.json").allowScripts as Record<string, boolean>
    const unapproved = withScripts.filter((name) => allowed[name] !== true)
    assert.deepStrictEqual(unapproved, [], "approve with `npm install-scripts approve <name>`")
  })
})
