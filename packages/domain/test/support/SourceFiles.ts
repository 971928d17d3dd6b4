/**
 * The repository's source files, for the tests that hold rules over all of
 * them (function length, file shape): every .ts/.tsx file under each
 * package's src and apps/server/src.
 */
import { readdirSync, statSync } from "node:fs"
import { join } from "node:path"

/** The repository's root. */
export const repo = join(import.meta.dirname, "..", "..", "..", "..")

/** Every .ts or .tsx file under `dir`, at any depth. */
export const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sourceFiles(path) : /\.tsx?$/.test(name) ? [path] : []
  })

/** Each package's src folder, and the server app's. */
export const sourceRoots = (): Array<string> => [
  ...readdirSync(join(repo, "packages"))
    .map((name) => join(repo, "packages", name, "src"))
    .filter((dir) => statSync(dir, { throwIfNoEntry: false })?.isDirectory() === true),
  join(repo, "apps", "server", "src")
]
