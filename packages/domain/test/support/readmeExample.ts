/** The README's example block (between the readme-example markers), as both README tests run it. */
import { readFileSync } from "node:fs"
import { join } from "node:path"

export const RepoRoot = join(import.meta.dirname, "..", "..", "..", "..")

export const ReadmeExampleOutput = "76.5 A 68.3 BBB oracle: thin-oracle"

export const readmeExample = (): string | undefined => {
  const readme = readFileSync(join(RepoRoot, "README.md"), "utf8")
  return /<!-- readme-example:begin -->\s*```js\n([\s\S]*?)```\s*<!-- readme-example:end -->/.exec(
    readme
  )?.[1]
}
