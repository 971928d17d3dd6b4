/**
 * A consumer of the packed package, set up as a new user would: the package's
 * publishable inputs are copied to a staging folder in the OS temp dir, packed
 * there with `npm pack` (whose `prepack` runs the package's build, so the
 * workspace's own dist/ is never rebuilt under the feet of the domain-dist
 * tests), and the tarball is installed with effect from the npm cache or
 * registry into a scratch project beside it: no workspace, no symlink, no
 * source condition.
 */
import { execFileSync } from "node:child_process"
import { cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { delimiter, join } from "node:path"
import { RepoRoot } from "../support/readmeExample.ts"

export const PackageDir = join(RepoRoot, "packages", "domain")
const RepoBin = join(RepoRoot, "node_modules", ".bin")

/**
 * The environment of a process outside the workspace: the repository's Node 24
 * and tsc first on PATH, and nothing that npm or vitest set for the workspace
 * (NODE_OPTIONS carries the source condition, npm_* the workspace's prefix).
 */
export const outsideEnv = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (
      !/^(NODE_OPTIONS|INIT_CWD|npm_package_.*|npm_lifecycle_.*|npm_config_(node_options|local_prefix))$/i.test(
        k
      )
    ) {
      env[k] = v
    }
  }
  env.PATH = `${RepoBin}${delimiter}${process.env.PATH ?? ""}`
  return env
}

export const run = (command: string, args: ReadonlyArray<string>, cwd: string): string =>
  execFileSync(command, args, { cwd, env: outsideEnv(), encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })

export interface Scratch {
  readonly root: string
  readonly stagedPackage: string
  readonly tarball: string
  readonly consumer: string
}

/**
 * The package's inputs to `npm pack`, laid out as in the repository (tsconfig.build.json extends
 * ../../), with the repository's node_modules beside them for the build's compiler and effect.
 */
const stage = (root: string): string => {
  const staged = join(root, "stage", "packages", "domain")
  mkdirSync(staged, { recursive: true })
  cpSync(join(RepoRoot, "tsconfig.base.json"), join(root, "stage", "tsconfig.base.json"))
  symlinkSync(join(RepoRoot, "node_modules"), join(root, "stage", "node_modules"), "dir")
  for (const name of ["package.json", "tsconfig.build.json", "LICENSE", "README.md", "src", "scripts"]) {
    cpSync(join(PackageDir, name), join(staged, name), { recursive: true })
  }
  return staged
}

export const effectVersion = (): string =>
  JSON.parse(readFileSync(join(RepoRoot, "node_modules", "effect", "package.json"), "utf8")).version

export const makeScratch = (): Scratch => {
  const root = mkdtempSync(join(tmpdir(), "ratings-domain-package-"))
  const stagedPackage = stage(root)
  const packed = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", root], stagedPackage))
  const tarball = join(root, packed[0].filename)
  const consumer = join(root, "consumer")
  mkdirSync(consumer)
  writeFileSync(
    join(consumer, "package.json"),
    JSON.stringify({ name: "consumer", version: "1.0.0", private: true, type: "module" })
  )
  run(
    "npm",
    ["install", "--prefer-offline", "--no-audit", "--no-fund", tarball, `effect@${effectVersion()}`],
    consumer
  )
  return { root, stagedPackage, tarball, consumer }
}
