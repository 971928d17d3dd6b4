/**
 * The post-quantum readiness league as the dashboard page showed it, moved
 * with the league to the explorer's /quantum page: public (no sign-in), a
 * chain the source gives no QRI, band or stage for is "not assessed", never
 * "null", under the operator's branding. The page's own tests (sorting,
 * links) are beside it; this one keeps what the dashboard's test checked.
 */
import { assert, describe, it } from "@effect/vitest"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { launchChromium } from "@ratings/adapters-http/test/Browser"
import { freePort } from "@ratings/adapters-sql/EmbeddedPostgres"
import { Effect } from "effect"
import { AcmeEnv } from "../BrandingEnv.ts"
import { exited, runCli, scratchDatabase, startCli, waitForOutput } from "../CliHarness.ts"

const snapshotFile = () => {
  const file = join(mkdtempSync(join(tmpdir(), "ratings-quantum-league-")), "quantum.json")
  const row = (slug: string, name: string, reading: object) => ({
    slug,
    name,
    profile: "L1",
    hybrid: "FAIL",
    danger: false,
    ci: 5,
    ...reading
  })
  writeFileSync(
    file,
    JSON.stringify({
      format: "ratings-import/v1",
      quantum_snapshot: {
        as_of: new Date(Date.now() - 60_000).toISOString(),
        sample: true,
        rows: [
          row("ethereum", "Ethereum", { qri: 25, band: 2, band_label: "Acknowledged", stage: 2 }),
          row("abstract", "Abstract", { qri: null, band: null, band_label: null, stage: null, danger: null }),
          row("halfway", "Halfway Chain", { qri: 40, band: 3, band_label: null, stage: null })
        ]
      }
    })
  )
  return file
}

describe("the quantum league, moved from the dashboard to /quantum", () => {
  it("is public, under the operator's branding, and shows null readings as not assessed", async () => {
    const db = await scratchDatabase()
    const imported = await runCli(["import", snapshotFile()], { DATABASE_URL: db.url })
    assert.strictEqual(imported.code, 0, imported.stderr)
    const port = await Effect.runPromise(freePort)
    const server = startCli(["serve", "--no-demo"], { PORT: String(port), DATABASE_URL: db.url, ...AcmeEnv })
    const browser = await launchChromium()
    try {
      await waitForOutput(server, /ratings service listening on/, 60_000)
      const base = `http://127.0.0.1:${port}`
      const page = await browser.newPage()
      const errors: Array<string> = []
      page.on("pageerror", (e) => errors.push(e.message))
      await page.goto(`${base}/quantum`)
      assert.include(await page.title(), AcmeEnv.RATINGS_SERVICE_NAME)
      assert.include(await page.locator("footer").innerText(), AcmeEnv.RATINGS_ATTRIBUTION)
      const cellsOf = (name: string) =>
        page.locator("tr", { hasText: name }).first().locator("th, td").allInnerTexts()
      const abstract = await cellsOf("Abstract")
      assert.include(abstract.join(" "), "Abstract")
      assert.isAtLeast(abstract.filter((c) => c.trim() === "not assessed").length, 3, abstract.join(" | "))
      const halfway = await cellsOf("Halfway Chain")
      assert.include(halfway, "40")
      assert.include(halfway, "not assessed")
      const ethereum = (await cellsOf("Ethereum")).join(" | ")
      assert.include(ethereum, "25")
      assert.include(ethereum, "Acknowledged")
      const main = await page.locator("main").innerText()
      assert.notMatch(main, /\bnull\b/i, "no reading is written null")
      assert.include(main, "LayerQu")
      assert.deepStrictEqual(errors, [])
    } finally {
      await browser.close()
      server.kill("SIGTERM")
      await exited(server)
      await db.drop()
    }
  }, 120_000)
})
