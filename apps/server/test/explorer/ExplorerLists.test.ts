/**
 * The explorer's lists in Chromium, anonymous, on the demo data with the
 * scale dataset's entities beside it (more protocols than a page holds):
 * every list shows what the API lists; search by name, the category and
 * chain filters (by the page's own form, JavaScript off, and as shareable
 * links) select what the API selects; sorting by name, grade, composite and
 * last change orders the rows; pages of 50 cover the list once, their links
 * keep the filters; a value out of place is a clear 400, never a 5xx.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { EntityTypes } from "@ratings/domain/model/EntityType"
import type { Browser, Page } from "playwright-core"
import { api, type ExplorerServer, launchExplorerBrowser, startExplorerServer } from "./ExplorerBrowser.ts"
import { listed, listPath } from "./ExplorerSite.ts"

let server: ExplorerServer
let browser: Browser

beforeAll(async () => {
  server = await startExplorerServer({ generated: 120 })
  browser = await launchExplorerBrowser()
}, 180_000)

afterAll(async () => {
  await browser?.close()
  await server?.dispose()
}, 60_000)

interface ShownRow {
  readonly slug: string
  readonly name: string
  readonly grade: string
  readonly composite: number | null
  readonly change: string
}

/** The rows of the list table as shown: slug (from its link), name, grade, composite, last change. */
const rowsOf = async (page: Page): Promise<ReadonlyArray<ShownRow>> =>
  (
    (await page.evaluate(
      `[...document.querySelectorAll("main table tbody tr")].map((tr) => ({
        href: tr.querySelector("a[href]")?.getAttribute("href") ?? "",
        text: [...tr.children].map((c) => (c.textContent ?? "").trim())
      }))`
    )) as ReadonlyArray<{ readonly href: string; readonly text: ReadonlyArray<string> }>
  ).map(({ href, text }) => {
    const composite = Number.parseFloat(text[2] ?? "")
    return {
      slug: href.split("/").pop() ?? "",
      name: text[0] ?? "",
      grade: text[1] ?? "",
      composite: Number.isFinite(composite) ? composite : null,
      change: text[3] ?? ""
    }
  })

/** Every row of a list across its pages, following the pager's "next" links. */
const allPages = async (
  page: Page,
  first: string
): Promise<{ rows: Array<ShownRow>; pages: Array<string> }> => {
  const rows: Array<ShownRow> = []
  const pages: Array<string> = []
  let url: string | null = `${server.base}${first}`
  while (url !== null && pages.length < 20) {
    await page.goto(url)
    pages.push(url)
    rows.push(...(await rowsOf(page)))
    const next = page.locator('a[rel="next"]').first()
    url = (await next.count()) === 0 ? null : new URL((await next.getAttribute("href"))!, url).href
  }
  return { rows, pages }
}

const slugsOf = (rows: ReadonlyArray<{ readonly slug: string }>) => rows.map((r) => r.slug).sort()

const GradeLadder = ["AAA", "AA", "A", "BBB", "BB", "B", "CCC", "CC", "C", "D"]
const rankOf = (grade: string) => {
  const i = GradeLadder.indexOf(grade.trim())
  return i === -1 ? Number.POSITIVE_INFINITY : i
}

const isOrdered = <A>(xs: ReadonlyArray<A>, le: (a: A, b: A) => boolean) =>
  xs.every((x, i) => i === 0 || le(xs[i - 1]!, x))

describe("explorer lists", () => {
  it("every type's list shows what the API lists, across its pages of at most 50, each row once", async () => {
    const page = await browser.newPage()
    for (const type of EntityTypes) {
      const expected = await listed(server, "anonymous", type)
      const { rows, pages } = await allPages(page, listPath(type))
      assert.deepStrictEqual(slugsOf(rows), slugsOf(expected), `${type}: the API's entities, each once`)
      assert.strictEqual(pages.length, Math.max(1, Math.ceil(expected.length / 50)), `${type}: pages of 50`)
    }
    await page.close()
  }, 240_000)

  it("paging keeps the filters and the sort in its links; the last page links no further", async () => {
    const page = await browser.newPage()
    const { rows, pages } = await allPages(page, "/protocols?sort=name&order=desc")
    assert.isAbove(pages.length, 1, "the protocols fill more than one page")
    for (const url of pages.slice(1)) {
      const q = new URL(url).searchParams
      assert.strictEqual(q.get("sort"), "name", url)
      assert.strictEqual(q.get("order"), "desc", url)
    }
    assert.isTrue(
      isOrdered(rows, (a, b) => a.name.localeCompare(b.name, "en", { sensitivity: "base" }) >= 0),
      "Z to A across pages"
    )
    const page2 = await fetch(`${pages[1]}`)
    assert.strictEqual(page2.status, 200, "a page's link can be shared")
    await page.close()
  }, 120_000)

  it("sorting by name, grade, composite and last change orders the rows, both ways", async () => {
    const page = await browser.newPage()
    const byName = (a: ShownRow, b: ShownRow) => a.name.localeCompare(b.name, "en", { sensitivity: "base" })
    for (const type of ["protocol", "chain"] as const) {
      const path = listPath(type)
      const rated = (rows: ReadonlyArray<ShownRow>) => rows.filter((r) => r.composite !== null)
      const dated = (rs: ReadonlyArray<ShownRow>) =>
        rs.flatMap((r) => {
          const m = /\d{4}-\d{2}-\d{2}/.exec(r.change)
          return m === null ? [] : [m[0]]
        })
      let rows = (await allPages(page, `${path}?sort=name&order=asc`)).rows
      assert.isTrue(
        isOrdered(rows, (a, b) => byName(a, b) <= 0),
        `${type}: name A to Z`
      )
      rows = (await allPages(page, `${path}?sort=composite&order=desc`)).rows
      assert.isAbove(rated(rows).length, 1, `${type}: rows with a composite to order`)
      assert.isAbove(dated(rows).length, 1, `${type}: rows with a last change to order`)
      assert.isTrue(
        isOrdered(rated(rows), (a, b) => a.composite! >= b.composite!),
        `${type}: composite high first`
      )
      assert.isTrue(
        isOrdered(rows, (a, b) => !(a.composite === null && b.composite !== null)),
        `${type}: unrated last`
      )
      rows = (await allPages(page, `${path}?sort=composite&order=asc`)).rows
      assert.isTrue(
        isOrdered(rated(rows), (a, b) => a.composite! <= b.composite!),
        `${type}: composite low first`
      )
      rows = (await allPages(page, `${path}?sort=grade&order=desc`)).rows
      assert.isTrue(
        isOrdered(rated(rows), (a, b) => rankOf(a.grade) <= rankOf(b.grade)),
        `${type}: best grade first`
      )
      rows = (await allPages(page, `${path}?sort=grade&order=asc`)).rows
      assert.isTrue(
        isOrdered(rated(rows), (a, b) => rankOf(a.grade) >= rankOf(b.grade)),
        `${type}: worst grade first`
      )
      rows = (await allPages(page, `${path}?sort=change&order=desc`)).rows
      assert.isTrue(
        isOrdered(dated(rows), (a, b) => a >= b),
        `${type}: latest change first`
      )
      rows = (await allPages(page, `${path}?sort=change&order=asc`)).rows
      assert.isTrue(
        isOrdered(dated(rows), (a, b) => a <= b),
        `${type}: earliest change first`
      )
    }
    await page.close()
  }, 240_000)

  it("search by name, category and chain select what the API holds, by the form with JavaScript off and by link", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false })
    const page = await context.newPage()
    const all = await listed(server, "anonymous", "protocol")
    const term = all[0]!.name.split(/\s+/)[0]!.toLowerCase()
    await page.goto(`${server.base}/protocols`)
    await page.locator('form[role="search"] input[name="q"]').fill(term)
    await Promise.all([
      page.waitForURL(/[?&]q=/),
      page.locator('form[role="search"] [type="submit"]').click()
    ])
    const found = await rowsOf(page)
    assert.isAbove(found.length, 0, `"${term}" finds something`)
    assert.isTrue(
      found.every((r) => r.name.toLowerCase().includes(term)),
      "every row's name holds the term"
    )
    const byName = all.filter((e) => e.name.toLowerCase().includes(term))
    assert.includeMembers(
      byName.map((e) => e.slug),
      found.map((r) => r.slug),
      "only entities whose name holds it"
    )
    if (byName.length <= 50)
      assert.sameMembers(slugsOf(found), slugsOf(byName), "every entity whose name holds it")

    const categories = new Map<string, number>()
    const chains = new Map<string, number>()
    const details = await api(server, "anonymous", "/protocols?limit=200")
    for (const item of details.body.items) {
      for (const c of item.categories as ReadonlyArray<string>)
        categories.set(c, (categories.get(c) ?? 0) + 1)
      for (const c of item.chains as ReadonlyArray<{ slug: string }>)
        chains.set(c.slug, (chains.get(c.slug) ?? 0) + 1)
    }
    const most = (m: Map<string, number>) => [...m.entries()].sort((a, b) => b[1] - a[1])[0]![0]
    for (const [param, value] of [
      ["category", most(categories)],
      ["chain", most(chains)]
    ] as const) {
      const expected = await listed(server, "anonymous", "protocol", `&${param}=${encodeURIComponent(value)}`)
      await page.goto(`${server.base}/protocols`)
      await page.locator(`form[role="search"] select[name="${param}"]`).selectOption(value)
      await Promise.all([
        page.waitForURL(new RegExp(`[?&]${param}=`)),
        page.locator('form[role="search"] [type="submit"]').click()
      ])
      const { rows } = await allPages(page, new URL(page.url()).pathname + new URL(page.url()).search)
      assert.deepStrictEqual(slugsOf(rows), slugsOf(expected), `${param}=${value}: what the API selects`)
    }
    await context.close()
  }, 120_000)

  it("a value out of place is a clear 400, never a 5xx", async () => {
    for (const query of [
      "sort=bogus",
      "order=sideways",
      "page=0",
      "page=abc",
      "page=99999",
      `q=${"x".repeat(300)}`,
      "chain=%00"
    ]) {
      const r = await fetch(`${server.base}/protocols?${query}`)
      assert.isBelow(r.status, 500, query)
      if (!["page=99999", "chain=%00"].includes(query)) assert.strictEqual(r.status, 400, query)
      assert.match(String(r.headers.get("content-type")), /^text\/html/, `${query}: a page that says so`)
    }
  })
})
