/**
 * Global set-up of the domain-dist test project: builds @ratings/domain's dist/
 * with the package's own build script (what `npm pack` runs), so the property
 * tests that follow import the JavaScript and declarations that would ship.
 * CI needs no build step of its own.
 */
import { execFileSync } from "node:child_process"
import { join } from "node:path"

const packageDir = join(import.meta.dirname, "..", "..")

export default function setup(): void {
  execFileSync("npm", ["run", "--silent", "build"], {
    cwd: packageDir,
    stdio: ["ignore", "inherit", "inherit"]
  })
}
