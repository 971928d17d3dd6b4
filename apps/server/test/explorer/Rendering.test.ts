/**
 * The explorer's rendering functions on their own: every text a record
 * carries is escaped by the renderer (a hostile name shows as text, never as
 * markup), grade letters are printed (never told by colour alone), the list
 * state's parsing, filtering, sorting and paging, the SVG charts' marks and
 * tooltips, the drag said in words, and the POST forms' origin check.
 */
import { assert, describe, it } from "@effect/vitest"
import { DefaultBranding } from "@ratings/domain/model/ServiceInfo"
import { Result } from "effect"
import { HttpServerRequest } from "effect/http"
import { renderToString } from "preact-render-to-string"
import { barChart, lineChart } from "../../src/explorer/Charts.ts"
import { safeUrl } from "../../src/explorer/EntityDetails.ts"
import { dragWords } from "../../src/explorer/EntityPage.ts"
import { documentOf } from "../../src/explorer/Html.ts"
import { Layout } from "../../src/explorer/Layout.ts"
import { listContent } from "../../src/explorer/ListPage.ts"
import type { Row, TypeRows } from "../../src/explorer/ListRows.ts"
import {
  DefaultState,
  type ListState,
  parseListState,
  queryOf,
  selectRows,
  viewOf
} from "../../src/explorer/ListView.ts"
import { sortRows } from "../../src/explorer/QuantumPage.ts"
import { sameOrigin } from "../../src/explorer/Session.ts"

const Hostile = `<script>alert("x")</script> & "Finance"`

const row = (
  name: string,
  grade: string | null,
  composite: number | null,
  extra: Partial<Row> = {}
): Row => ({
  slug: name.toLowerCase().replace(/[^a-z0-9]+/g, "-"),
  name,
  searchText: `${name.toLowerCase()}\u0000${name.toLowerCase()}\u0000`,
  grade,
  composite,
  changedAt: composite === null ? null : `2026-0${(composite % 9) + 1}-01T00:00:00+00:00`,
  direction: composite === null ? null : "new",
  categories: ["lending"],
  chains: [{ slug: "ethereum", name: "Ethereum" }],
  ...extra
})

const rowsOf = (rows: ReadonlyArray<Row>): TypeRows => ({
  type: "protocol",
  rows,
  categories: ["dex", "lending"],
  chains: [{ slug: "ethereum", name: "Ethereum" }]
})

const state = (params: string): ListState => Result.getOrThrow(parseListState(new URLSearchParams(params)))

describe("explorer rendering", () => {
  it("escapes a hostile name everywhere it is shown and prints every grade letter", () => {
    const rows = rowsOf([row(Hostile, "AAA", 96.1), row("Plain", "BBB", 66), row("Unrated", null, null)])
    const html = documentOf(
      Layout({
        branding: { ...DefaultBranding, serviceName: `<b>Acme</b>` },
        viewer: { kind: "anonymous" },
        title: Hostile,
        section: "/protocols",
        children: listContent(rows, DefaultState)
      })
    )
    assert.notInclude(html, "<script>alert")
    assert.notInclude(html, "<b>Acme</b>")
    assert.include(html, "&lt;script>alert(&quot;x&quot;)&lt;/script> &amp; &quot;Finance&quot;")
    assert.include(html, ">AAA</span>")
    assert.include(html, ">BBB</span>")
    assert.include(html, "not rated")
    assert.match(html, /^<!doctype html>\n<html lang="en">/)
  })

  it("parses the list state from the query and refuses what does not fit", () => {
    assert.deepStrictEqual(state(""), DefaultState)
    assert.deepStrictEqual(state("sort=name&category=DEX&q=%20aave%20&page=3"), {
      sort: "name",
      order: "asc",
      category: "dex",
      chain: undefined,
      q: "aave",
      page: 3
    })
    for (const bad of ["sort=price", "order=up", "page=0", "page=-1", "page=x", `q=${"a".repeat(201)}`])
      assert.isTrue(Result.isFailure(parseListState(new URLSearchParams(bad))), bad)
    assert.strictEqual(
      queryOf(state("sort=composite&order=asc&chain=base&page=2")),
      "?sort=composite&order=asc&chain=base&page=2"
    )
    assert.strictEqual(queryOf(DefaultState), "")
  })

  it("sorts by grade, composite, name and last change, unrated rows last either way", () => {
    const rows = [
      row("B", "B", 55),
      row("Top", "AAA", 97),
      row("None", null, null),
      row("A", "A", 80),
      row("A2", "A", 76)
    ]
    const names = (s: string) => selectRows(rows, state(s)).map((r) => r.name)
    assert.deepStrictEqual(names(""), ["Top", "A", "A2", "B", "None"])
    assert.deepStrictEqual(names("order=asc"), ["B", "A2", "A", "Top", "None"])
    assert.deepStrictEqual(names("sort=composite&order=asc"), ["B", "A2", "A", "Top", "None"])
    assert.deepStrictEqual(names("sort=name"), ["A", "A2", "B", "None", "Top"])
    assert.deepStrictEqual(names("sort=name&order=desc"), ["Top", "None", "B", "A2", "A"])
    assert.strictEqual(names("sort=change").at(-1), "None")
  })

  it("filters by category, chain and search, and pages by 50", () => {
    const many = Array.from({ length: 120 }, (_, i) =>
      row(`P${String(i).padStart(3, "0")}`, "A", 80, i % 2 === 0 ? { categories: ["dex"] } : {})
    )
    const rows = rowsOf([...many, row("Bridgey", "B", 50, { chains: [{ slug: "base", name: "Base" }] })])
    const first = viewOf(rows, state("sort=name"))
    assert.strictEqual(first.total, 121)
    assert.strictEqual(first.pages, 3)
    assert.strictEqual(first.items.length, 50)
    assert.strictEqual(viewOf(rows, state("sort=name&page=3")).items.length, 21)
    assert.strictEqual(viewOf(rows, state("sort=name&page=4")).items.length, 0)
    assert.strictEqual(viewOf(rows, state("category=dex")).total, 60)
    assert.deepStrictEqual(
      viewOf(rows, state("chain=base")).items.map((r) => r.name),
      ["Bridgey"]
    )
    assert.deepStrictEqual(
      viewOf(rows, state("q=BRIDG")).items.map((r) => r.name),
      ["Bridgey"]
    )
    assert.strictEqual(viewOf(rows, state("q=nothing-like-it")).total, 0)
  })

  it("draws domain scores and history as SVG with a tooltip per mark", () => {
    const bars = renderToString(
      barChart(
        [
          { domain: "smart_contracts", score: 0.8125, weight: 25 },
          { domain: "governance", score: 0.5 }
        ],
        "Scores <x>"
      )
    )
    assert.match(bars, /^<svg class="chart" viewBox="0 0 640 84" role="img" aria-label="Scores &lt;x>">/)
    assert.include(bars, "<title>Smart contracts: 81.3%, weight 25%</title>")
    assert.include(bars, "<title>Governance: 50.0%</title>")
    assert.strictEqual(bars.match(/class="bar"/g)?.length, 2)
    assert.strictEqual(bars.match(/class="weight"/g)?.length, 1)
    const line = renderToString(
      lineChart(
        [
          { version: 1, at: "2025-01-01T00:00:00Z", composite: 70, grade: "BBB" },
          { version: 2, at: "2026-01-01T00:00:00Z", composite: 88.3, grade: "AA" }
        ],
        "History"
      )
    )
    assert.include(line, "<title>Version 2, 2026-01-01: 88.3 (AA)</title>")
    assert.include(line, '<polyline class="line" points="40,70 600,37.1"')
    assert.strictEqual(line.match(/<circle/g)?.length, 2)
  })

  it("says the intrinsic pair and the drag in words, linking a readable dependency only", () => {
    const card = {
      grade: "A",
      intrinsic_letter_grade: "AA",
      composite_score: 83.2,
      intrinsic_composite_score: 86.7,
      largest_drag_hint: "chain: ethereum",
      has_unrated_dependencies: true
    } as unknown as Parameters<typeof dragWords>[0]
    const words = renderToString(dragWords(card))
    assert.include(words, "On its own answers it scores 86.7 (AA).")
    assert.include(words, "drag the headline down by 3.5 points, to 83.2 (A).")
    assert.include(words, '<a href="/chains/ethereum">chain ethereum</a>')
    assert.include(words, "Some of its dependencies are not rated yet.")
    const hidden = renderToString(
      dragWords({ ...card, largest_drag_hint: "largest drag: chain" } as typeof card)
    )
    assert.include(hidden, "a chain that is not public")
    assert.notInclude(hidden, "<a ")
    assert.include(renderToString(dragWords(undefined)), "Not rated yet")
  })

  it("names the dragging dependency by the name the caller may read, and its type", () => {
    const card = {
      grade: "A",
      intrinsic_letter_grade: "AA",
      composite_score: 83.2,
      intrinsic_composite_score: 86.7,
      largest_drag_hint: "oracle: chainlink",
      has_unrated_dependencies: false
    } as unknown as Parameters<typeof dragWords>[0]
    const named = renderToString(dragWords(card, `Chainlink <b>`))
    assert.include(
      named,
      'The largest drag comes from <a href="/oracles/chainlink">Chainlink &lt;b> (oracle)</a>.'
    )
    assert.notInclude(named, "oracle chainlink")
    const hidden = renderToString(
      dragWords({ ...card, largest_drag_hint: "largest drag: oracle" } as typeof card, "Never shown")
    )
    assert.include(hidden, "an oracle that is not public")
    assert.notInclude(hidden, "Never shown")
  })

  it("keeps every date label of the history chart inside its drawing, the last one ending at its point", () => {
    for (const count of [1, 2, 3, 9, 40]) {
      const points = Array.from({ length: count }, (_, i) => ({
        version: i + 1,
        at: `2026-${String((i % 12) + 1).padStart(2, "0")}-01T00:00:00Z`,
        composite: 50 + (i % 40),
        grade: "BBB"
      }))
      const svg = renderToString(lineChart(points, "History"))
      const width = Number(/viewBox="0 0 (\d+) /.exec(svg)![1])
      const labels = [
        ...svg.matchAll(/<text x="([\d.]+)" y="[\d.]+" text-anchor="(\w+)">(\d{4}-\d\d-\d\d)</g)
      ]
      assert.isAtLeast(labels.length, Math.min(count, 2), `${count} points`)
      const spans = labels.map(([, x, anchor]) => {
        const at = Number(x)
        return anchor === "end" ? [at - 62, at] : anchor === "start" ? [at, at + 62] : [at - 31, at + 31]
      })
      for (const [left, right] of spans) {
        assert.isAtLeast(left!, 0, `${count} points`)
        assert.isAtMost(right!, width, `${count} points`)
      }
      for (let i = 1; i < spans.length; i++)
        assert.isAbove(spans[i]![0]!, spans[i - 1]![1]!, `${count} points: labels ${i - 1} and ${i} overlap`)
      if (count > 1) assert.strictEqual(labels.at(-1)![2], "end", "the last label ends at its point")
      // Every point keeps its date in its tooltip, labelled or not.
      assert.strictEqual(svg.match(/<title>Version \d+, \d{4}-/g)?.length, count)
    }
  })

  it("sorts the quantum league with unassessed chains last, and links only http(s) URLs", () => {
    const q = (name: string, qri: number | null) =>
      ({ name, qri }) as unknown as Parameters<typeof sortRows>[0][number]
    const sorted = sortRows([q("a", null), q("b", 40), q("c", 70)], { key: "qri", order: "desc" })
    assert.deepStrictEqual(
      sorted.map((r) => r.name),
      ["c", "b", "a"]
    )
    assert.strictEqual(safeUrl("javascript:alert(1)"), undefined)
    assert.strictEqual(safeUrl("https://example.org/x"), "https://example.org/x")
  })

  it("accepts a form only from a page of this origin", () => {
    const post = (headers: Record<string, string>) =>
      HttpServerRequest.fromWeb(new Request("http://ratings.test/sign-in", { method: "POST", headers }))
    assert.isTrue(sameOrigin(post({ host: "ratings.test", origin: "http://ratings.test" })))
    assert.isTrue(sameOrigin(post({ host: "ratings.test", referer: "http://ratings.test/protocols" })))
    assert.isFalse(sameOrigin(post({ host: "ratings.test", origin: "https://evil.example" })))
    assert.isFalse(sameOrigin(post({ host: "ratings.test", origin: "null" })))
    assert.isFalse(sameOrigin(post({ host: "ratings.test" })))
    assert.isTrue(
      sameOrigin(
        post({
          host: "10.0.0.5:3000",
          "x-forwarded-host": "ratings.example",
          origin: "https://ratings.example"
        }),
        1
      )
    )
  })
})
