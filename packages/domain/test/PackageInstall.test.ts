/**
 * Issue 16: @ratings/domain as another tool installs it. The package is packed
 * (its prepack builds dist/), the tarball installed with effect into a scratch
 * project in the OS temp dir, outside the workspace, and there:
 * - its manifest names the repository and home page, exports only the entry
 *   points that resolve in the install (the workspace's source-only subpaths
 *   stay home), and no shipped file cites a spec part (issue 26 point 8);
 * - the README example runs with plain `node` and prints what the README says;
 * - a strict TypeScript consumer type-checks under nodenext and bundler
 *   resolution, while a deliberate type error and an import of an internal
 *   module are both reported (the declarations carry the real types, and only
 *   the entry points are exported);
 * - the scoring entry point, bundled for the browser by esbuild, scores a
 *   scorecard in headless Chromium (no Node API in the pure core) and refuses
 *   a bad one with a typed error; the bundle's size, minified and gzipped, is
 *   printed, and above 25 KB gzipped the test fails (issue 26 point 6: the
 *   errors are `Data` errors, so Schema stays out of the bundle).
 */
import { execFile, execFileSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join, relative } from "node:path"
import { gzipSync } from "node:zlib"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { build } from "esbuild"
import { chromium } from "playwright-core"
import { BrowserEntry, type Resolution, writeConsumer } from "./package/Consumer.ts"
import { makeScratch, outsideEnv, PackageDir, run, type Scratch } from "./package/Scratch.ts"
import { RepoRoot, ReadmeExampleOutput, readmeExample } from "./support/readmeExample.ts"

const ChromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"
const Tsc = join(RepoRoot, "node_modules", ".bin", "tsc")
/** The most a browser page pays, gzipped, to score with `@ratings/domain/scoring`. */
const MaxScoringGzip = 25 * 1024

let scratch: Scratch

beforeAll(() => {
  scratch = makeScratch()
}, 180_000)

afterAll(() => {
  if (scratch !== undefined) rmSync(scratch.root, { recursive: true, force: true })
})

/** Every file of the installed package, recursively. */
const shippedFiles = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? shippedFiles(path) : [path]
  })

/** tsc's exit code and output for one tsconfig, run in the consumer project (several at once). */
const tsc = (config: string): Promise<{ code: number; out: string }> =>
  new Promise((resolve) => {
    execFile(Tsc, ["-p", config], { cwd: scratch.consumer, env: outsideEnv() }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : Number(error.code ?? 1), out: `${stdout}${stderr}` })
    )
  })

describe("@ratings/domain installed from its tarball", () => {
  it("is a real install: files from the tarball, effect beside it, publishable", () => {
    const installed = join(scratch.consumer, "node_modules", "@ratings", "domain")
    const pkg = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"))
    assert.isFalse(pkg.private === true)
    assert.strictEqual(pkg.sideEffects, false)
    assert.strictEqual(pkg.license, "MIT")
    assert.strictEqual(pkg.engines.node, ">=22.19")
    assert.deepStrictEqual(Object.keys(pkg.peerDependencies), ["effect"])
    for (const file of ["dist/index.js", "dist/index.d.ts", "dist/entry/scoring.js.map", "LICENSE"]) {
      assert.isTrue(readFileSync(join(installed, file)).length > 0, file)
    }
    const listed = execFileSync("tar", ["tzf", scratch.tarball], { encoding: "utf8" })
    // No TypeScript source, tests or build state: only dist/, the licence, the README and package.json.
    assert.deepStrictEqual(
      listed
        .split("\n")
        .filter(
          (f) =>
            f !== "" && !/^package\/(dist\/.*\.(js|d\.ts|js\.map)|LICENSE|README\.md|package\.json)$/.test(f)
        ),
      []
    )
    // Exit 0 is the check; --ignore-scripts because pack has just built dist/ with the same script.
    run("npm", ["publish", "--dry-run", "--ignore-scripts"], scratch.stagedPackage)
  })

  it("names its repository and home page, exports only what it ships, and cites no spec part", () => {
    const installed = join(scratch.consumer, "node_modules", "@ratings", "domain")
    const pkg = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"))
    assert.deepStrictEqual(pkg.repository, {
      type: "git",
      url: "git+https://github.com/ratings-service/ratings-service.git",
      directory: "packages/domain"
    })
    assert.match(pkg.homepage, /^https:\/\/github\.com\/ratings-service\/ratings-service#/)
    // The workspace's source-only subpaths and condition stay home; the workspace's manifest is put back.
    const paths = Object.keys(pkg.exports)
    assert.deepStrictEqual(paths, [
      ".",
      "./scoring",
      "./grades",
      "./methodology",
      "./import-format",
      "./package.json"
    ])
    assert.notInclude(JSON.stringify(pkg.exports), "@ratings/source")
    assert.strictEqual(
      readFileSync(join(scratch.stagedPackage, "package.json"), "utf8"),
      readFileSync(join(PackageDir, "package.json"), "utf8")
    )
    const specifiers = paths.map((p) => `@ratings/domain${p.slice(1)}`)
    const resolved = execFileSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `for (const s of ${JSON.stringify(specifiers)}) {
          const url = import.meta.resolve(s)
          if (!s.endsWith(".json")) await import(s)
          console.log(url.slice(url.indexOf("/node_modules/")))
        }`
      ],
      { cwd: scratch.consumer, env: outsideEnv(), encoding: "utf8" }
    )
    assert.strictEqual(resolved.trim().split("\n").length, paths.length, resolved)
    for (const target of Object.values(pkg.exports) as Array<string | Record<string, string>>) {
      for (const file of typeof target === "string" ? [target] : Object.values(target)) {
        assert.isTrue(existsSync(join(installed, file)), file)
      }
    }
    for (const file of shippedFiles(installed)) {
      assert.notMatch(readFileSync(file, "utf8"), /spec part|\(part \d/i, relative(installed, file))
    }
  })

  it("runs the README example with plain node", () => {
    const block = readmeExample()
    assert.isDefined(block)
    writeFileSync(join(scratch.consumer, "example.mjs"), block!)
    const out = execFileSync(process.execPath, ["example.mjs"], {
      cwd: scratch.consumer,
      env: outsideEnv(),
      encoding: "utf8"
    })
    assert.strictEqual(out.trim(), ReadmeExampleOutput)
  })

  for (const resolution of ["nodenext", "bundler"] as const satisfies ReadonlyArray<Resolution>) {
    it(`type-checks a strict consumer under moduleResolution ${resolution}, and reports its errors`, async () => {
      const configs = writeConsumer(scratch.consumer, resolution)
      const [good, bad] = await Promise.all([tsc(configs.good), tsc(configs.bad)])
      assert.strictEqual(good.code, 0, good.out)
      assert.notStrictEqual(bad.code, 0)
      assert.match(bad.out, /bad\.ts\(3,14\): error TS2322/, bad.out)
      assert.match(bad.out, /bad\.ts\(4,\d+\): error TS(2322|2820): Type '"protocl"'/, bad.out)
      assert.match(bad.out, /internal\.ts\(1,\d+\): error TS2307/, bad.out)
    }, 90_000)
  }

  it("bundles the scoring entry point for the browser and scores in headless Chromium", async () => {
    writeFileSync(join(scratch.consumer, "browser.mjs"), BrowserEntry)
    const bundled = await build({
      absWorkingDir: scratch.consumer,
      entryPoints: ["browser.mjs"],
      bundle: true,
      minify: true,
      platform: "browser",
      format: "iife",
      write: false,
      logLevel: "silent"
    })
    const code = bundled.outputFiles[0]!.text
    const gzipped = gzipSync(code).length
    console.log(`@ratings/domain/scoring browser bundle: ${code.length} B minified, ${gzipped} B gzipped`)
    assert.isAtMost(gzipped, MaxScoringGzip, "the scoring entry's browser bundle, gzipped")
    assert.notMatch(
      code,
      /NetAddress|Cookies|SchemaAST/,
      "Schema and what it drags in stay out of the bundle"
    )
    const browser = await chromium.launch({
      executablePath: ChromiumPath,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
    })
    try {
      const page = await browser.newPage()
      const errors: Array<string> = []
      page.on("pageerror", (e) => errors.push(e.message))
      await page.setContent("<!doctype html><title>scoring</title>")
      await page.addScriptTag({ content: code })
      const [scored, refused] = await page.evaluate(() => {
        const g = globalThis as { scored?: unknown; refused?: unknown }
        return [g.scored, g.refused]
      })
      assert.deepStrictEqual(errors, [])
      assert.deepStrictEqual(scored, [76.5, "A"])
      assert.deepStrictEqual(refused, [
        [
          "DomainWeightsSumError",
          true,
          "domain_weights",
          "domain weights must sum to 100, but they sum to 60"
        ],
        [
          "InvalidInput",
          true,
          "input",
          "input must be an object with entity_type, categories and answers, got null"
        ]
      ])
    } finally {
      await browser.close()
    }
  }, 60_000)
})
