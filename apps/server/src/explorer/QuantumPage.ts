/**
 * The post-quantum readiness league: the third-party snapshot as the API
 * serves it, sortable by chain, QRI, band or stage (links, and the script
 * sorts in place); a chain the source gives no figure for reads "not
 * assessed" and sorts last; a row links to its chain's page only when the
 * caller may read that chain. It never feeds a grade, and the page says so.
 */
import type { QuantumLeagueTable, QuantumRow, QuantumUnavailable } from "@ratings/domain/model/Quantum"
import { scrollTable } from "./Components.ts"
import { el, type Node } from "./Dom.ts"
import { safeUrl } from "./EntityDetails.ts"
import { dateOf } from "./Words.ts"

/** The league as the API serves it, and the chains the caller may open (a row links only to those). */
export interface QuantumView {
  readonly table: QuantumLeagueTable | QuantumUnavailable
  readonly readable: ReadonlySet<string>
}

const Keys = ["name", "qri", "band", "stage"] as const
export interface QuantumSort {
  readonly key: (typeof Keys)[number]
  readonly order: "asc" | "desc"
}

/** The sort a query asks for, or what is wrong with it. */
export const parseQuantumSort = (params: URLSearchParams): QuantumSort | string => {
  const key = params.get("sort") ?? "qri"
  if (!(Keys as ReadonlyArray<string>).includes(key)) return `sort must be one of ${Keys.join(", ")}`
  const order = params.get("order") ?? (key === "name" ? "asc" : "desc")
  if (order !== "asc" && order !== "desc") return "order must be asc or desc"
  return { key: key as QuantumSort["key"], order }
}

const valueOf = (row: QuantumRow, key: QuantumSort["key"]): number | string | null =>
  key === "name" ? row.name.toLowerCase() : row[key]

/** The rows in the sort's order, rows without the figure last. */
export const sortRows = (rows: ReadonlyArray<QuantumRow>, sort: QuantumSort): ReadonlyArray<QuantumRow> => {
  const sign = sort.order === "asc" ? 1 : -1
  const known = rows.filter((r) => valueOf(r, sort.key) !== null)
  const unknown = rows.filter((r) => valueOf(r, sort.key) === null)
  known.sort((a, b) => {
    const [x, y] = [valueOf(a, sort.key)!, valueOf(b, sort.key)!]
    return sign * (x < y ? -1 : x > y ? 1 : 0) || a.name.localeCompare(b.name)
  })
  return [...known, ...unknown]
}

const NotAssessed = "not assessed"

const header = (sort: QuantumSort, key: QuantumSort["key"], label: string, column: number) => {
  const current = sort.key === key
  const order = current ? (sort.order === "asc" ? "desc" : "asc") : key === "name" ? "asc" : "desc"
  return el(
    "th",
    {
      scope: "col",
      "data-column": column,
      "aria-sort": current ? (sort.order === "asc" ? "ascending" : "descending") : undefined
    },
    el("a", { href: `/quantum?sort=${key}&order=${order}` }, label)
  )
}

const row =
  (readable: ReadonlySet<string>) =>
  (r: QuantumRow): Node =>
    el(
      "tr",
      { key: r.slug },
      el(
        "th",
        { scope: "row", "data-sort": r.name.toLowerCase() },
        r.matched_chain_slug === null || !readable.has(r.matched_chain_slug)
          ? r.name
          : el("a", { href: `/chains/${r.matched_chain_slug}` }, r.name)
      ),
      el("td", { "data-sort": r.qri ?? -1, class: "num" }, r.qri === null ? NotAssessed : String(r.qri)),
      el(
        "td",
        { "data-sort": r.band ?? -1 },
        r.band === null ? NotAssessed : `${r.band} ${r.band_label ?? ""}`
      ),
      el(
        "td",
        { "data-sort": r.stage ?? -1, class: "num" },
        r.stage === null ? NotAssessed : String(r.stage)
      ),
      el("td", { class: "hide-narrow" }, r.profile),
      el("td", { class: "hide-narrow" }, r.hybrid)
    )

export const quantumContent = ({ table, readable }: QuantumView, sort: QuantumSort): Node => {
  if (!table.available)
    return el(
      "section",
      null,
      el("h1", null, "Post-quantum readiness"),
      el("p", { class: "message" }, `Not available: ${table.reason}.`)
    )
  return el(
    "section",
    null,
    el("h1", null, "Post-quantum readiness"),
    el(
      "p",
      { class: "lead" },
      `A third-party dataset (${table.source}), as of ${dateOf(table.as_of)}${table.stale === true ? ", served stale after a failed refresh" : ""}. It never feeds a grade.`
    ),
    scrollTable(
      { label: "Quantum readiness league" },
      el(
        "table",
        { "data-sortable": true },
        el("caption", null, `${table.rows.length} chains`),
        el(
          "thead",
          null,
          el(
            "tr",
            null,
            header(sort, "name", "Chain", 0),
            header(sort, "qri", "QRI", 1),
            header(sort, "band", "Band", 2),
            header(sort, "stage", "Migration stage", 3),
            el("th", { scope: "col", class: "hide-narrow" }, "Profile"),
            el("th", { scope: "col", class: "hide-narrow" }, "Hybrid signatures")
          )
        ),
        el("tbody", null, sortRows(table.rows, sort).map(row(readable)))
      )
    ),
    el(
      "p",
      { class: "muted" },
      table.attribution,
      " ",
      el("a", { href: safeUrl(table.source_url) }, "Source")
    )
  )
}
