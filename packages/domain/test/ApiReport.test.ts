/**
 * Issue 16 point 4: a change to @ratings/domain's public API is visible. The
 * declarations the published build emits must equal the committed report
 * (api/domain.api.md); when they differ on purpose, regenerate the report with
 * `npm run api:report -w @ratings/domain` and let the diff be reviewed.
 */
import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { builtDeclarations, renderReport, ReportPath } from "./support/apiReport.ts"

describe("@ratings/domain API report", () => {
  it("the built declarations are the committed report", () => {
    const files = builtDeclarations()
    assert.isTrue(files.some((f) => f.file === "entry/scoring.d.ts"))
    const committed = readFileSync(ReportPath, "utf8")
    assert.isTrue(
      committed === renderReport(files),
      "the public API changed: run `npm run api:report -w @ratings/domain` and review the diff of packages/domain/api/domain.api.md"
    )
  }, 60_000)

  // The declarations keep the source's `.ts` specifiers (TypeScript maps them to the .d.ts beside).
  it("exports nothing but the entry points' names from the root", () => {
    const root = builtDeclarations().find((f) => f.file === "index.d.ts")
    assert.deepStrictEqual(
      root?.text.split("\n").filter((l) => l.startsWith("export")),
      [
        'export * from "./entry/grades.ts";',
        'export * from "./entry/import-format.ts";',
        'export * from "./entry/methodology.ts";',
        'export * from "./entry/scoring.ts";'
      ]
    )
  }, 60_000)
})
