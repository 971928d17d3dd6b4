/**
 * The API report of @ratings/domain: the declarations the package ships (every
 * .d.ts its public entry points reach, as the published build emits them),
 * one section per file. It is committed as api/domain.api.md, so a change to
 * the public API shows in review, and ApiReport.test.ts fails when the build's
 * declarations differ from it.
 *
 *   node packages/domain/test/support/apiReport.ts --update      rewrite api/domain.api.md
 *   node packages/domain/test/support/apiReport.ts --html DIR    render the reference as DIR/index.html
 *
 * (`npm run api:report -w @ratings/domain` is the first.) TypeDoc would render
 * the reference, but no release of it runs on TypeScript 7; the declarations
 * with their doc comments are the reference instead.
 */
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"

const PackageDir = join(import.meta.dirname, "..", "..")
export const ReportPath = join(PackageDir, "api", "domain.api.md")
const Tsc = join(PackageDir, "..", "..", "node_modules", ".bin", "tsc")

const declarationFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? declarationFiles(path) : path.endsWith(".d.ts") ? [path] : []
  })

/** The published build's declarations, emitted into a temp dir (the workspace's dist/ is left alone). */
export const builtDeclarations = (): ReadonlyArray<{ readonly file: string; readonly text: string }> => {
  const out = mkdtempSync(join(tmpdir(), "ratings-domain-api-"))
  try {
    execFileSync(
      Tsc,
      [
        "-p",
        "tsconfig.build.json",
        "--outDir",
        out,
        "--emitDeclarationOnly",
        "--sourceMap",
        "false",
        "--inlineSources",
        "false"
      ],
      { cwd: PackageDir, stdio: ["ignore", "pipe", "pipe"] }
    )
    return declarationFiles(out)
      .map((path) => ({
        file: relative(out, path).split("\\").join("/"),
        text: readFileSync(path, "utf8")
          .replace(/^\/\/# sourceMappingURL=.*$/m, "")
          .trimEnd()
      }))
      .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0))
  } finally {
    rmSync(out, { recursive: true, force: true })
  }
}

export const renderReport = (files: ReturnType<typeof builtDeclarations>): string =>
  [
    "# @ratings/domain API report",
    "",
    "The declarations the package ships (dist/), generated: do not edit. Update with",
    "`npm run api:report -w @ratings/domain` and review the diff: it is the change to the public API.",
    "",
    ...files.flatMap(({ file, text }) => [`## ${file}`, "", "```ts", text, "```", ""])
  ].join("\n")

const escape = (s: string): string => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

export const renderHtml = (files: ReturnType<typeof builtDeclarations>): string => {
  const entries = files.filter(({ file }) => file === "index.d.ts" || file.startsWith("entry/"))
  const rest = files.filter((f) => !entries.includes(f))
  const section = ({ file, text }: { file: string; text: string }) =>
    `<h2 id="${escape(file)}">${escape(file)}</h2>\n<pre>${escape(text)}</pre>`
  return [
    "<!doctype html><meta charset=utf-8><title>@ratings/domain API reference</title>",
    "<style>body{font-family:sans-serif;max-width:60rem;margin:auto}pre{background:#f6f8fa;padding:1rem;overflow:auto}</style>",
    "<h1>@ratings/domain API reference</h1>",
    "<p>The entry points' declarations with their doc comments, then the modules they re-export from.</p>",
    `<ul>${files.map(({ file }) => `<li><a href="#${escape(file)}">${escape(file)}</a></li>`).join("")}</ul>`,
    ...entries.map(section),
    ...rest.map(section)
  ].join("\n")
}

if (import.meta.main) {
  const files = builtDeclarations()
  const html = process.argv.indexOf("--html")
  if (html !== -1) {
    const dir = process.argv[html + 1] ?? "build/api-reference"
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, "index.html"), renderHtml(files))
    console.log(`API reference: ${join(dir, "index.html")}`)
  } else if (process.argv.includes("--update")) {
    mkdirSync(join(PackageDir, "api"), { recursive: true })
    writeFileSync(ReportPath, `${renderReport(files)}`)
    console.log(`API report: ${ReportPath}`)
  } else {
    console.error("usage: apiReport.ts --update | --html DIR")
    process.exitCode = 2
  }
}
