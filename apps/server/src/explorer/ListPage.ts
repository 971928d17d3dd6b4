/**
 * An entity type's table: name (a link to its page), grade badge, composite,
 * last change, categories and chains; sortable by its column headers (links,
 * so sorting works without script; the script sorts a page in place), with a
 * filter form (category, chain, search) that is a plain GET, and pages of 50.
 */
import { type EntityType, PluralOf } from "@ratings/domain/model/EntityType"
import { changeOf, gradeBadge, gradeSortValue, pager, scrollTable } from "./Components.ts"
import { el, type Node } from "./Dom.ts"
import type { Row, TypeRows } from "./ListRows.ts"
import { type ListState, naturalOrder, queryOf, type SortKey, viewOf } from "./ListView.ts"
import { figure, TypeTitles } from "./Words.ts"

const hrefOf = (type: EntityType, state: ListState): string => `/${PluralOf[type]}${queryOf(state)}`

/** A sortable column's header: a link to the list sorted by it (reversed when it is the sort already). */
const sortHeader = (
  type: EntityType,
  state: ListState,
  key: SortKey,
  label: string,
  column: number,
  numeric = false
) => {
  const current = state.sort === key
  const order = current ? (state.order === "asc" ? "desc" : "asc") : naturalOrder(key)
  return el(
    "th",
    {
      scope: "col",
      class: numeric ? "num" : undefined,
      "data-column": column,
      "aria-sort": current ? (state.order === "asc" ? "ascending" : "descending") : undefined
    },
    el("a", { href: hrefOf(type, { ...state, sort: key, order, page: 1 }) }, label)
  )
}

const chainLinks = (row: Row): Node =>
  el(
    "span",
    null,
    row.chains.flatMap((c, i) => [
      i === 0 ? null : ", ",
      el("a", { href: `/chains/${c.slug}`, key: c.slug }, c.name)
    ])
  )

/** One row of the table. */
export const rowOfTable = (type: EntityType, row: Row): Node =>
  el(
    "tr",
    { key: row.slug },
    el(
      "th",
      { scope: "row", "data-sort": row.name.toLowerCase() },
      el("a", { href: `/${PluralOf[type]}/${row.slug}` }, row.name)
    ),
    el("td", { "data-sort": gradeSortValue(row.grade) }, gradeBadge(row.grade)),
    el("td", { class: "num", "data-sort": row.composite ?? -1 }, figure(row.composite)),
    el("td", { "data-sort": row.changedAt ?? "" }, changeOf(row.changedAt, row.direction)),
    el("td", { class: "hide-narrow" }, row.categories.join(", ")),
    el("td", { class: "hide-narrow" }, chainLinks(row))
  )

/** The table of some rows, with its sortable headers. */
export const rowsTable = (
  type: EntityType,
  rows: ReadonlyArray<Row>,
  state: ListState,
  caption: string
): Node =>
  scrollTable(
    { label: caption },
    el(
      "table",
      { "data-sortable": true },
      el("caption", null, caption),
      el(
        "thead",
        null,
        el(
          "tr",
          null,
          sortHeader(type, state, "name", "Name", 0),
          sortHeader(type, state, "grade", "Grade", 1),
          sortHeader(type, state, "composite", "Composite", 2, true),
          sortHeader(type, state, "change", "Last change", 3),
          el("th", { scope: "col", class: "hide-narrow" }, "Category"),
          el("th", { scope: "col", class: "hide-narrow" }, "Chains")
        )
      ),
      el(
        "tbody",
        null,
        rows.map((row) => rowOfTable(type, row))
      )
    )
  )

const option = (value: string, label: string, selected: boolean) =>
  el("option", { value, selected: selected || undefined }, label)

/** The filter form: a GET of the list with the state's sort kept. */
const filters = (rows: TypeRows, state: ListState): Node =>
  el(
    "form",
    { class: "filters", method: "get", action: `/${PluralOf[rows.type]}`, role: "search" },
    el("input", { type: "hidden", name: "sort", value: state.sort }),
    el("input", { type: "hidden", name: "order", value: state.order }),
    el(
      "label",
      null,
      "Search by name",
      el("input", { type: "search", name: "q", value: state.q ?? "", maxlength: 200 })
    ),
    el(
      "label",
      null,
      "Category",
      el(
        "select",
        { name: "category" },
        option("", "Any category", state.category === undefined),
        rows.categories.map((c) => option(c, c, state.category === c))
      )
    ),
    el(
      "label",
      null,
      "Chain",
      el(
        "select",
        { name: "chain" },
        option("", "Any chain", state.chain === undefined),
        rows.chains.map((c) => option(c.slug, c.name, state.chain === c.slug))
      )
    ),
    el("button", { type: "submit" }, "Apply"),
    el("a", { href: `/${PluralOf[rows.type]}` }, "Clear")
  )

/** The content of a type's list page for a state. */
export const listContent = (rows: TypeRows, state: ListState): Node => {
  const view = viewOf(rows, state)
  const title = TypeTitles[rows.type]
  return el(
    "section",
    null,
    el("h1", null, title),
    filters(rows, state),
    view.items.length === 0
      ? el(
          "p",
          { class: "message" },
          view.total === 0 ? "Nothing matches these filters." : "No rows on this page."
        )
      : rowsTable(
          rows.type,
          view.items,
          state,
          `${title}: ${view.total} listed, sorted by ${state.sort} (${state.order})`
        ),
    pager(state.page, view.pages, view.total, (page) => hrefOf(rows.type, { ...state, page }))
  )
}
