/**
 * An entity page's figures equal the API's for the same caller: for each
 * caller (anonymous, and Free, Pro and Enterprise signed in by the form) and
 * every entity it sees, the page in Chromium shows the grade, composite and
 * intrinsic pair of the latest scorecard the API gives that caller; the
 * domain scores (as percentages) exactly when the API gives them to it (Pro
 * and up), and none of them otherwise; the answers' rationales exactly when
 * the API gives them (Enterprise). The list pages' grade and composite per
 * row are the API's too.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { ScorecardByIdSegment } from "@ratings/domain/model/EntityType"
import type { Browser } from "playwright-core"
import {
  api,
  Callers,
  type CallerName,
  type ExplorerServer,
  launchExplorerBrowser,
  openAs,
  startExplorerServer,
  Viewports
} from "./ExplorerBrowser.ts"
import { type EntityRef, entityPath, listPath, viewOf } from "./ExplorerSite.ts"

let server: ExplorerServer
let browser: Browser

beforeAll(async () => {
  server = await startExplorerServer()
  browser = await launchExplorerBrowser()
}, 180_000)

afterAll(async () => {
  await browser?.close()
  await server?.dispose()
}, 60_000)

interface Card {
  readonly id: string
  readonly status: string
  readonly scorecard_version: number
  readonly letter_grade: string | null
  readonly composite_score: number | null
  readonly intrinsic_composite_score: number | null
  readonly intrinsic_letter_grade: string | null
}

/** The latest published scorecard the API gives `caller`, if any. */
const latestCard = async (caller: CallerName, e: EntityRef): Promise<Card | undefined> => {
  const r = await api(server, caller, `${entityPath(e)}/scorecards?limit=100`)
  assert.strictEqual(r.status, 200, `${caller} scorecards of ${e.slug}`)
  const published = (r.body.items as ReadonlyArray<Card>).filter((c) => c.status === "published")
  return [...published].sort((a, b) => b.scorecard_version - a.scorecard_version)[0]
}

const percentOf = (fraction: number) => `${(fraction * 100).toFixed(1)}%`
const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
const shows = (text: string, token: string) =>
  new RegExp(`(?<![A-Za-z0-9.])${escapeRegex(token)}(?![A-Za-z0-9]|\\.\\d)`).test(text)
const squeeze = (s: string) => s.replace(/\s+/g, " ")

/** The rationales of a scorecard's answers, as an Enterprise caller reads them. */
const rationalesOf = async (e: EntityRef, card: Card): Promise<ReadonlyArray<string>> => {
  const r = await api(server, "enterprise", `/${ScorecardByIdSegment[e.type]}/${card.id}`)
  if (r.status !== 200) return []
  return (r.body.answers as ReadonlyArray<{ rationale: string | null }>)
    .flatMap((a) => (a.rationale !== null && a.rationale.length >= 24 ? [squeeze(a.rationale)] : []))
    .slice(0, 5)
}

const checkCaller = async (caller: CallerName) => {
  const view = await viewOf(server, caller)
  const { context, page } = await openAs(browser, server, caller, Viewports[1])
  const problems: Array<string> = []
  try {
    for (const e of view.visible) {
      const where = `${caller} ${entityPath(e)}`
      const response = await page.goto(`${server.base}${entityPath(e)}`)
      if (response?.status() !== 200) {
        problems.push(`${where}: status ${response?.status()}`)
        continue
      }
      const text = squeeze((await page.locator("main").textContent()) ?? "")
      const card = await latestCard(caller, e)
      if (card === undefined || card.letter_grade === null) {
        if (!/not rated/i.test(text)) problems.push(`${where}: an unrated entity says so`)
      } else {
        for (const [what, token] of [
          ["grade", card.letter_grade],
          ["composite", card.composite_score],
          ["intrinsic composite", card.intrinsic_composite_score],
          ["intrinsic grade", card.intrinsic_letter_grade]
        ] as const)
          if (token !== null && !shows(text, String(token))) problems.push(`${where}: no ${what} ${token}`)
      }
      const domains = await api(server, caller, `${entityPath(e)}/domains`)
      const proDomains = await api(server, "pro", `${entityPath(e)}/domains`)
      const scores = Object.values((proDomains.body?.domain_scores ?? {}) as Record<string, number>).map(
        percentOf
      )
      for (const score of scores) {
        const shown = text.includes(score)
        if (domains.status === 200 && !shown) problems.push(`${where}: no domain score ${score}`)
        if (domains.status !== 200 && shown)
          problems.push(`${where}: domain score ${score} shown to a tier without domains`)
      }
      if (card !== undefined)
        for (const rationale of await rationalesOf(e, card)) {
          const shown = text.includes(rationale)
          if (caller === "enterprise" && !shown)
            problems.push(`${where}: no answer rationale "${rationale.slice(0, 40)}..."`)
          if (caller !== "enterprise" && shown)
            problems.push(`${where}: an answer's rationale shown below Enterprise`)
        }
    }
  } finally {
    await context.close()
  }
  assert.deepStrictEqual(
    problems,
    [],
    `${caller}: every entity page's figures are the API's:\n${problems.join("\n")}`
  )
}

describe("explorer figures equal the API's", () => {
  for (const caller of Callers)
    it(`as ${caller}: every entity page it may see`, async () => {
      await checkCaller(caller)
    }, 600_000)

  it("the list rows' grade and composite are the API's, anonymous and Pro", async () => {
    for (const caller of ["anonymous", "pro"] as const) {
      const view = await viewOf(server, caller)
      const { context, page } = await openAs(browser, server, caller, Viewports[1])
      try {
        for (const type of ["protocol", "chain", "vault"] as const) {
          await page.goto(`${server.base}${listPath(type)}`)
          const rows = (await page.evaluate(
            `[...document.querySelectorAll("main table tbody tr")].map((tr) => ({
              href: tr.querySelector("a[href]")?.getAttribute("href") ?? "",
              text: [...tr.children].map((c) => (c.textContent ?? "").trim())
            }))`
          )) as ReadonlyArray<{ readonly href: string; readonly text: ReadonlyArray<string> }>
          for (const e of view.visible.filter((v) => v.type === type)) {
            const row = rows.find((r) => r.href === entityPath(e))
            assert.isDefined(row, `${caller} ${type} list: a row for ${e.slug}`)
            const card = await latestCard(caller, e)
            const grade = card?.letter_grade ?? null
            assert.include(row!.text[1], grade ?? "not rated", `${caller} ${e.slug}: grade`)
            if (card?.composite_score != null)
              assert.strictEqual(row!.text[2], String(card.composite_score), `${caller} ${e.slug}: composite`)
          }
        }
      } finally {
        await context.close()
      }
    }
  }, 300_000)
})
