/**
 * The lower part of an entity page: its chains, external ids and links, the
 * incidents matched to a protocol, a chain's quantum-readiness reading ("not
 * assessed" where the source gives no figure), and for Enterprise callers the
 * answer, rationale and evidence of every question.
 */
import { PluralOf } from "@ratings/domain/model/EntityType"
import { tierBadge } from "./Components.ts"
import { el, type Node } from "./Dom.ts"
import type { EntityView } from "./EntityData.ts"
import { chainsOf } from "./ListRows.ts"
import { dateOf, domainTitle, figure } from "./Words.ts"

const identity = (view: EntityView): Node => {
  const chains = chainsOf(view.record)
  const ids = Object.entries(view.record.external_ids ?? {})
  const urls = Object.entries(view.record.urls ?? {})
  return el(
    "section",
    { "aria-labelledby": "h-identity" },
    el("h2", { id: "h-identity" }, "Chains and identifiers"),
    el(
      "dl",
      null,
      el("dt", null, "Categories"),
      el("dd", null, (view.record.categories ?? []).join(", ") || "–"),
      el("dt", null, "Chains"),
      el(
        "dd",
        null,
        chains.length === 0
          ? "–"
          : chains.flatMap((c, i) => [
              i === 0 ? null : ", ",
              el("a", { key: c.slug, href: `/chains/${c.slug}` }, c.name)
            ])
      ),
      el("dt", null, "External ids"),
      el(
        "dd",
        null,
        ids.length === 0
          ? "–"
          : el(
              "ul",
              null,
              ids.map(([k, v]) => el("li", { key: k }, `${k}: ${v}`))
            )
      ),
      el("dt", null, "Links"),
      el(
        "dd",
        null,
        urls.length === 0
          ? "–"
          : el(
              "ul",
              null,
              urls.map(([k, v]) => el("li", { key: k }, `${k}: `, el("a", { href: safeUrl(v) }, v)))
            )
      )
    )
  )
}

/** A link target only when it is http(s); anything else (javascript:, data:) is not linked. */
export const safeUrl = (url: string): string | undefined => (/^https?:\/\//i.test(url) ? url : undefined)

const incidents = (view: EntityView): Node | null => {
  const feed = view.incidents
  if (feed === undefined) return null
  return el(
    "section",
    { "aria-labelledby": "h-incidents" },
    el("h2", { id: "h-incidents" }, "Incidents"),
    feed.items.length === 0
      ? el("p", { class: "muted" }, "No incident is matched to this protocol.")
      : el(
          "ul",
          null,
          feed.items.map((i) =>
            el(
              "li",
              { key: i.incident_id },
              tierBadge(i.status),
              ` ${dateOf(i.detected_at)} · ${i.exploit_class}`,
              i.loss_estimate_usd === null
                ? ""
                : ` · estimated loss $${i.loss_estimate_usd.toLocaleString("en-US")}`,
              i.chain === null ? "" : ` · ${i.chain}`,
              i.resolved_at === null ? "" : ` · resolved ${dateOf(i.resolved_at)}`
            )
          )
        ),
    el("p", null, el("a", { href: "/incidents?min_status=rumored" }, "The whole incident feed"))
  )
}

const quantum = (view: EntityView): Node | null => {
  const q = view.quantum
  if (q === undefined) return null
  const body = !q.available
    ? el("p", { class: "muted", "data-figure": "quantum" }, `Not assessed (${q.reason}).`)
    : el(
        "dl",
        { "data-figure": "quantum" },
        el("dt", null, "QRI"),
        el("dd", null, q.qri === null ? "not assessed" : String(q.qri)),
        el("dt", null, "Band"),
        el("dd", null, q.band === null ? "not assessed" : `${q.band} ${q.band_label ?? ""}`),
        el("dt", null, "Migration stage"),
        el("dd", null, q.stage === null ? "not assessed" : String(q.stage)),
        el("dt", null, "Hybrid signatures"),
        el("dd", null, q.hybrid),
        el("dt", null, "As of"),
        el("dd", null, dateOf(q.as_of))
      )
  return el(
    "section",
    { "aria-labelledby": "h-quantum" },
    el("h2", { id: "h-quantum" }, "Post-quantum readiness"),
    body,
    el("p", null, el("a", { href: "/quantum" }, "The quantum readiness league"))
  )
}

const answers = (view: EntityView): Node | null => {
  const qs = view.questions
  if (qs === undefined) return null
  const evidence = new Map((view.evidence?.items ?? []).map((e) => [e.question_id, e]))
  return el(
    "section",
    { "aria-labelledby": "h-answers" },
    el("h2", { id: "h-answers" }, "Answers and evidence"),
    qs.items.map((q) => {
      const e = evidence.get(q.question_id)
      return el(
        "details",
        { class: "answer", key: q.question_id, "data-question": q.question_id },
        el(
          "summary",
          null,
          `${domainTitle(q.domain)} · ${q.question_id}: ${q.text} — score ${figure(q.score)} of ${q.max_score}`
        ),
        el(
          "p",
          null,
          `Response: ${q.response ?? "–"}. Confidence: ${q.confidence ?? "–"}. Weight: ${q.weight}.`
        ),
        q.rationale === null ? null : el("p", null, `Rationale: ${q.rationale}`),
        e?.reasoning === null || e === undefined ? null : el("p", null, `Reasoning: ${e.reasoning}`),
        e === undefined || e.evidence.length === 0
          ? null
          : el(
              "ul",
              null,
              e.evidence.map((item, n) =>
                el(
                  "li",
                  { key: n },
                  `${item.kind}: `,
                  item.url === null ? null : el("a", { href: safeUrl(item.url) }, item.url),
                  item.excerpt === null ? null : ` “${item.excerpt}”`,
                  item.collected_at === null ? null : ` (${dateOf(item.collected_at)})`
                )
              )
            )
      )
    })
  )
}

/** The details below the figures and charts. */
export const details = (view: EntityView): Node =>
  el(
    "div",
    null,
    identity(view),
    incidents(view),
    quantum(view),
    answers(view),
    el("p", null, el("a", { href: `/${PluralOf[view.type]}` }, "Back to the list"))
  )
