/**
 * The home page and the seven list pages. A list page is answered from the
 * response cache, keyed by its normalised state and the caller's kind; a miss
 * renders it from the type's rows, which the cache holds as a snapshot per
 * projection class and version (ListRows.ts), so no page of any filter, sort
 * or search costs a query once the rows are held. Home shows every type's
 * count and the top of its table.
 */
import { type EntityType, EntityTypes, PluralOf } from "@ratings/domain/model/EntityType"
import { ChangeTopics } from "@ratings/domain/model/ChangeTopic"
import { Effect, Result } from "effect"
import { HttpRouter } from "effect/http"
import { el } from "./Dom.ts"
import { bytesOf } from "./Html.ts"
import { Layout } from "./Layout.ts"
import { listContent, rowsTable } from "./ListPage.ts"
import { buildRows, rowsBytes, type TypeRows } from "./ListRows.ts"
import { DefaultState, parseListState, stateKey } from "./ListView.ts"
import { respondPage } from "./PageCache.ts"
import { BadQuery, type ExplorerSettings, explorerPage, type PageContext } from "./Pages.ts"
import { TypeTitles } from "./Words.ts"

/** The topics a type's rows show: the type, and the chains they name. */
const rowTopics = (type: EntityType) => (type === "chain" ? [] : (["chain"] as const))

const listPage = (type: EntityType) => (context: PageContext) =>
  Effect.gen(function* () {
    const parsed = parseListState(context.url.searchParams)
    if (Result.isFailure(parsed)) return yield* new BadQuery({ message: parsed.failure })
    const state = parsed.success
    const render = (rows: TypeRows) =>
      bytesOf(
        Layout({
          branding: context.branding,
          viewer: context.viewer,
          title: TypeTitles[type],
          section: `/${PluralOf[type]}`,
          children: listContent(rows, state)
        })
      )
    const compute = () => buildRows(context.services.reader, context.caller, type)
    return yield* respondPage(context.cache, context.request, {
      caller: context.caller,
      key: `list|${type}|${stateKey(state)}`,
      type,
      also: rowTopics(type),
      compute,
      render,
      snapshot: {
        key: `explorer-rows|${type}`,
        build: () => Effect.map(compute(), (rows) => ({ value: rows, bytes: rowsBytes(rows) })),
        body: render
      }
    })
  })

const TopOfHome = 5

/** Home: each type's count and its best-graded entities. */
const homePage = (context: PageContext) =>
  respondPage(context.cache, context.request, {
    caller: context.caller,
    key: "home",
    type: "protocol",
    also: ChangeTopics.filter((t) => t !== "protocol" && t !== "incident" && t !== "quantum"),
    compute: () =>
      Effect.forEach(EntityTypes, (type) => buildRows(context.services.reader, context.caller, type)),
    render: (all: ReadonlyArray<TypeRows>) =>
      bytesOf(
        Layout({
          branding: context.branding,
          viewer: context.viewer,
          title: "Ratings explorer",
          section: "/",
          children: el(
            "section",
            null,
            el("h1", null, `${context.branding.serviceName}: ratings explorer`),
            el(
              "p",
              { class: "lead" },
              `Letter grades and scorecards under the ${context.branding.frameworkName}, for every rated type. Pick a type for its whole table.`
            ),
            all.map((rows) =>
              el(
                "section",
                { key: rows.type, "aria-labelledby": `h-${rows.type}` },
                el(
                  "h2",
                  { id: `h-${rows.type}` },
                  el(
                    "a",
                    { href: `/${PluralOf[rows.type]}` },
                    `${TypeTitles[rows.type]} (${rows.rows.length})`
                  )
                ),
                rows.rows.length === 0
                  ? el("p", { class: "muted" }, "None listed yet.")
                  : rowsTable(
                      rows.type,
                      topOf(rows),
                      DefaultState,
                      `The top ${Math.min(TopOfHome, rows.rows.length)} of ${rows.rows.length} by grade`
                    )
              )
            )
          )
        })
      )
  })

const topOf = (rows: TypeRows) =>
  [...rows.rows]
    .filter((r) => r.grade !== null)
    .sort((a, b) => (b.composite ?? 0) - (a.composite ?? 0) || a.name.localeCompare(b.name))
    .slice(0, TopOfHome)

export const listRoutes = (settings: ExplorerSettings) => [
  HttpRouter.add("GET", "/", explorerPage(settings, homePage)),
  ...EntityTypes.map((type) =>
    HttpRouter.add("GET", `/${PluralOf[type]}`, explorerPage(settings, listPage(type)))
  )
]
