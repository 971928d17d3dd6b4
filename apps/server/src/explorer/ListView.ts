/**
 * A list page's state and what it shows, as pure functions: the state is the
 * query string (`sort`, `order`, `category`, `chain`, `q`, `page`), so a link
 * is the page; a value out of place is a clear 400. Filtering, sorting and
 * paging of a type's rows (pages of 50; unrated rows last whatever the order).
 */
import { Result } from "effect"
import type { Row, TypeRows } from "./ListRows.ts"
import { gradeRank } from "./Words.ts"

export const PageSize = 50

export const SortKeys = ["grade", "composite", "name", "change"] as const
export type SortKey = (typeof SortKeys)[number]

export interface ListState {
  readonly sort: SortKey
  readonly order: "asc" | "desc"
  readonly category: string | undefined
  readonly chain: string | undefined
  readonly q: string | undefined
  readonly page: number
}

export const DefaultState: ListState = {
  sort: "grade",
  order: "desc",
  category: undefined,
  chain: undefined,
  q: undefined,
  page: 1
}

/** The order a sort key starts in: the best or newest first, names A to Z. */
export const naturalOrder = (sort: SortKey): "asc" | "desc" => (sort === "name" ? "asc" : "desc")

const nonEmpty = (value: string | null): string | undefined => {
  const trimmed = value?.trim()
  return trimmed === undefined || trimmed === "" ? undefined : trimmed
}

/** The state a query string asks for, or what is wrong with it. */
export const parseListState = (params: URLSearchParams): Result.Result<ListState, string> => {
  const sort = nonEmpty(params.get("sort")) ?? DefaultState.sort
  if (!(SortKeys as ReadonlyArray<string>).includes(sort))
    return Result.fail(`sort must be one of ${SortKeys.join(", ")}`)
  const order = nonEmpty(params.get("order")) ?? naturalOrder(sort as SortKey)
  if (order !== "asc" && order !== "desc") return Result.fail("order must be asc or desc")
  const pageText = nonEmpty(params.get("page")) ?? "1"
  const page = /^[0-9]{1,6}$/.test(pageText) ? Number(pageText) : Number.NaN
  if (!(page >= 1)) return Result.fail("page must be a whole number from 1")
  const q = nonEmpty(params.get("q"))
  if (q !== undefined && q.length > 200) return Result.fail("q must be at most 200 characters")
  return Result.succeed({
    sort: sort as SortKey,
    order,
    category: nonEmpty(params.get("category"))?.toLowerCase(),
    chain: nonEmpty(params.get("chain"))?.toLowerCase(),
    q,
    page
  })
}

/** The query string of a state (defaults left out), with `?` when not empty. */
export const queryOf = (state: ListState): string => {
  const params = new URLSearchParams()
  if (state.sort !== DefaultState.sort) params.set("sort", state.sort)
  if (state.order !== naturalOrder(state.sort)) params.set("order", state.order)
  if (state.category !== undefined) params.set("category", state.category)
  if (state.chain !== undefined) params.set("chain", state.chain)
  if (state.q !== undefined) params.set("q", state.q)
  if (state.page !== 1) params.set("page", String(state.page))
  const text = params.toString()
  return text === "" ? "" : `?${text}`
}

/** The key of a state in the response cache (every field, defaults applied). */
export const stateKey = (state: ListState): string =>
  JSON.stringify([state.sort, state.order, state.category, state.chain, state.q, state.page])

const matches = (row: Row, state: ListState, needle: string | undefined): boolean =>
  (state.category === undefined || row.categories.includes(state.category)) &&
  (state.chain === undefined || row.chains.some((c) => c.slug === state.chain)) &&
  (needle === undefined || row.searchText.includes(needle))

/** Ascending comparison of two rated rows by a key; names break ties. */
const byKey =
  (sort: SortKey) =>
  (a: Row, b: Row): number => {
    switch (sort) {
      case "grade":
        return gradeRank(a.grade) - gradeRank(b.grade) || (a.composite ?? 0) - (b.composite ?? 0)
      case "composite":
        return (a.composite ?? 0) - (b.composite ?? 0)
      case "change":
        return (a.changedAt ?? "") < (b.changedAt ?? "")
          ? -1
          : (a.changedAt ?? "") > (b.changedAt ?? "")
            ? 1
            : 0
      case "name":
        return 0
    }
  }

const hasKey = (row: Row, sort: SortKey): boolean =>
  sort === "name"
    ? true
    : sort === "change"
      ? row.changedAt !== null
      : row.composite !== null || row.grade !== null

const byName = (a: Row, b: Row) => a.name.localeCompare(b.name) || (a.slug < b.slug ? -1 : 1)

/** The rows a state selects, sorted (rows without the key last, by name). */
export const selectRows = (rows: ReadonlyArray<Row>, state: ListState): ReadonlyArray<Row> => {
  const needle = state.q?.toLowerCase()
  const selected = rows.filter((row) => matches(row, state, needle))
  const sign = state.order === "asc" ? 1 : -1
  const compare = byKey(state.sort)
  const keyed = selected.filter((r) => hasKey(r, state.sort))
  const rest = selected.filter((r) => !hasKey(r, state.sort)).sort(byName)
  keyed.sort((a, b) => sign * (compare(a, b) || byName(a, b) * (state.sort === "name" ? 1 : sign)))
  return [...keyed, ...rest]
}

export interface ListView {
  readonly items: ReadonlyArray<Row>
  readonly total: number
  readonly pages: number
}

/** The page a state shows of a type's rows. */
export const viewOf = (rows: TypeRows, state: ListState): ListView => {
  const selected = selectRows(rows.rows, state)
  const start = (state.page - 1) * PageSize
  return {
    items: selected.slice(start, start + PageSize),
    total: selected.length,
    pages: Math.ceil(selected.length / PageSize)
  }
}
