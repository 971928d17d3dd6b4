/**
 * The incidents page (the feed newest first, each incident's tier as a
 * badge, the `min_status` filter and pages of 50), the methodology (the
 * grade ladder, each type's domains with their default weights and its
 * question count) and the quantum league (sortable; "not assessed" where the
 * source gives no figure). Each reads the API's own service for the caller,
 * through the response cache under the topics it shows.
 */
import { IncidentTiers, isIncidentTier } from "@ratings/domain/model/IncidentTier"
import { PluralOf } from "@ratings/domain/model/EntityType"
import type { IncidentFeedPage } from "@ratings/domain/model/Incident"
import type { MethodologyBody } from "@ratings/domain/model/Responses"
import { defaultDomainWeights } from "@ratings/domain/scoring/ScoreEntity"
import { Effect } from "effect"
import { HttpRouter } from "effect/http"
import { pager, scrollTable, tierBadge } from "./Components.ts"
import { el, type Node } from "./Dom.ts"
import { bytesOf } from "./Html.ts"
import { Layout } from "./Layout.ts"
import { MaxRows } from "./ListRows.ts"
import { PageSize } from "./ListView.ts"
import { respondPage } from "./PageCache.ts"
import { BadQuery, type ExplorerSettings, explorerPage, type PageContext } from "./Pages.ts"
import { quantumContent, parseQuantumSort, type QuantumView } from "./QuantumPage.ts"
import { dateOf, domainTitle, TypeNames } from "./Words.ts"

const page = (context: PageContext, title: string, section: string, children: Node) =>
  bytesOf(Layout({ branding: context.branding, viewer: context.viewer, title, section, children }))

const th = (label: string) => el("th", { scope: "col", key: label }, label)

const incidentsContent = (feed: IncidentFeedPage, minStatus: string, pageNo: number): Node =>
  el(
    "section",
    null,
    el("h1", null, "Incidents"),
    el(
      "p",
      { class: "lead" },
      "Hack incidents reported by independent sources, newest first. An incident is a signal to look, never an applied downgrade."
    ),
    el(
      "form",
      { class: "filters", method: "get", action: "/incidents" },
      el(
        "label",
        null,
        "Lowest tier shown",
        el(
          "select",
          { name: "min_status" },
          IncidentTiers.map((t) =>
            el("option", { key: t, value: t, selected: t === minStatus || undefined }, t)
          )
        )
      ),
      el("button", { type: "submit" }, "Apply")
    ),
    feed.items.length === 0
      ? el("p", { class: "message" }, "No incident at or above this tier.")
      : scrollTable(
          { label: "Incidents" },
          el(
            "table",
            null,
            el("caption", null, `${feed.total} incidents at ${minStatus} or above`),
            el(
              "thead",
              null,
              el(
                "tr",
                null,
                ["Detected", "Tier", "Protocol", "Exploit", "Chain", "Loss (USD)", "Sources"].map(th)
              )
            ),
            el(
              "tbody",
              null,
              feed.items.map((i) =>
                el(
                  "tr",
                  { key: i.incident_id },
                  el("td", null, dateOf(i.detected_at)),
                  el("td", null, tierBadge(i.status)),
                  el(
                    "td",
                    null,
                    i.slug === null
                      ? i.protocol_name
                      : el("a", { href: `/protocols/${i.slug}` }, i.protocol_name)
                  ),
                  el("td", null, i.exploit_class),
                  el("td", null, i.chain ?? "–"),
                  el(
                    "td",
                    { class: "num" },
                    i.loss_estimate_usd === null ? "–" : i.loss_estimate_usd.toLocaleString("en-US")
                  ),
                  el("td", { class: "num" }, String(i.source_count))
                )
              )
            )
          )
        ),
    pager(
      pageNo,
      Math.ceil(feed.total / PageSize),
      feed.total,
      (n) => `/incidents?min_status=${minStatus}${n === 1 ? "" : `&page=${n}`}`
    )
  )

const incidentsPage = (context: PageContext) =>
  Effect.gen(function* () {
    const params = context.url.searchParams
    const minStatus = params.get("min_status") ?? "confirmed"
    if (!isIncidentTier(minStatus))
      return yield* new BadQuery({ message: `min_status must be one of ${IncidentTiers.join(", ")}` })
    const pageText = params.get("page") ?? "1"
    const pageNo = /^[0-9]{1,6}$/.test(pageText) ? Number(pageText) : 0
    if (pageNo < 1) return yield* new BadQuery({ message: "page must be a whole number from 1" })
    return yield* respondPage(context.cache, context.request, {
      caller: context.caller,
      key: `incidents|${minStatus}|${pageNo}`,
      type: "incident",
      also: ["protocol"],
      compute: () =>
        context.services.incidents.feed(
          { min_status: minStatus, limit: PageSize, offset: (pageNo - 1) * PageSize },
          context.caller
        ),
      render: (feed: IncidentFeedPage) =>
        page(context, "Incidents", "/incidents", incidentsContent(feed, minStatus, pageNo))
    })
  })

const methodologyContent = (m: MethodologyBody): Node =>
  el(
    "section",
    null,
    el("h1", null, m.name),
    el(
      "p",
      { class: "lead" },
      `Version ${m.version}: ${m.total_questions} questions in all. ${m.grade_rounding}`
    ),
    el("h2", null, "Grade ladder"),
    scrollTable(
      { label: "Grade ladder" },
      el(
        "table",
        null,
        el("thead", null, el("tr", null, ["Grade", "Composite from", "Meaning"].map(th))),
        el(
          "tbody",
          null,
          m.grade_scale.map((b) =>
            el(
              "tr",
              { key: b.grade },
              el("td", null, el("span", { class: `grade grade-${b.grade}` }, b.grade)),
              el("td", { class: "num" }, String(b.min_score)),
              el("td", null, b.description)
            )
          )
        )
      )
    ),
    el("h2", null, "Domains and weights per type"),
    el(
      "p",
      { class: "muted" },
      "Default weights in percent; an entity's own categories may shift them, and its page shows the weights its scorecard used (Enterprise)."
    ),
    el(
      "div",
      { class: "cards" },
      m.entity_types.map((t) => {
        const weights = defaultDomainWeights(t.type, [])
        return el(
          "div",
          { class: "card", key: t.type },
          el("h3", null, el("a", { href: `/${PluralOf[t.type]}` }, TypeNames[t.type])),
          el("p", null, `${t.questions} questions in ${t.domain_count} domains`),
          el(
            "ul",
            null,
            t.domains.map((d) =>
              el("li", { key: d }, `${domainTitle(d)}${weights[d] === undefined ? "" : `: ${weights[d]}%`}`)
            )
          )
        )
      })
    ),
    el("p", null, el("a", { href: m.methodology_url }, "The full methodology"))
  )

const methodologyPage = (context: PageContext) =>
  respondPage(context.cache, context.request, {
    caller: context.caller,
    key: "methodology",
    type: "protocol",
    also: ["chain", "token", "oracle", "vault", "organisation", "bridge"],
    compute: () => context.services.reader.methodology(),
    render: (m: MethodologyBody) => page(context, "Methodology", "/methodology", methodologyContent(m))
  })

const quantumPage = (context: PageContext) =>
  Effect.gen(function* () {
    const sort = parseQuantumSort(context.url.searchParams)
    if (typeof sort === "string") return yield* new BadQuery({ message: sort })
    // The expiry travels from the computation to the entry beside the value (as the API's quantum reads).
    let changesAt: number | undefined
    return yield* respondPage(context.cache, context.request, {
      caller: context.caller,
      key: `quantum|${sort.key}|${sort.order}`,
      type: "quantum",
      also: ["chain"],
      compute: () =>
        Effect.all({
          table: Effect.map(context.services.quantum.leagueTableTimed, (timed) => {
            changesAt = timed.changesAt
            return timed.value
          }),
          readable: Effect.map(
            context.services.reader.list(context.caller, {
              entity_type: "chain",
              categories: [],
              skip: 0,
              limit: MaxRows
            }),
            (page) => new Set(page.items.map((chain) => chain.slug))
          )
        }),
      expiresAt: () => changesAt,
      render: (table: QuantumView) =>
        page(context, "Quantum readiness", "/quantum", quantumContent(table, sort))
    })
  })

export const feedRoutes = (settings: ExplorerSettings) => [
  HttpRouter.add("GET", "/incidents", explorerPage(settings, incidentsPage)),
  HttpRouter.add("GET", "/methodology", explorerPage(settings, methodologyPage)),
  HttpRouter.add("GET", "/quantum", explorerPage(settings, quantumPage))
]
