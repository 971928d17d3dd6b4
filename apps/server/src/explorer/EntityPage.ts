/**
 * An entity's page: its grade and composite, the intrinsic pair and the
 * dependency drag said in words (which dependency drags most and by how
 * much, as the scorecard's figures and the caller's drag hint say), the
 * domain scores as a bar chart (with weights when the tier reads them), the
 * composite and grade over time, then the details (EntityDetails.ts). Every
 * figure is the one the API serves the same caller.
 */
import { dragHintTarget } from "@ratings/domain/scoring/DependencyDrag"
import { PluralOf } from "@ratings/domain/model/EntityType"
import type { Scorecard } from "@ratings/domain/model/Scorecard"
import { barChart, lineChart } from "./Charts.ts"
import { gradeBadge, scrollTable } from "./Components.ts"
import { el, type Node } from "./Dom.ts"
import { details } from "./EntityDetails.ts"
import type { EntityView } from "./EntityData.ts"
import { dateOf, figure, TypeNames } from "./Words.ts"

/** The latest published scorecard of the list (the figures every route serves). */
export const latestOf = (view: EntityView): Scorecard | undefined =>
  view.scorecards.find((s) => s.status === "published")

const fig = (name: string, label: string, value: Node | string) =>
  el("div", null, el("dt", null, label), el("dd", { "data-figure": name }, value))

const figures = (card: Scorecard | undefined): Node =>
  el(
    "dl",
    { class: "figures" },
    fig("grade", "Grade", gradeBadge(card?.grade ?? null, true)),
    fig("composite", "Composite (0-100)", figure(card?.composite_score)),
    fig("intrinsic-composite", "Intrinsic composite", figure(card?.intrinsic_composite_score)),
    fig("intrinsic-grade", "Intrinsic grade", card?.intrinsic_letter_grade ?? "–"),
    fig("version", "Scorecard version", card === undefined ? "–" : String(card.scorecard_version)),
    fig("published", "Published", dateOf(card?.scorecard_published_at))
  )

/**
 * The dependency named by a drag hint: by its name and type ("Chainlink
 * (oracle)"), linked, when the caller may read it; as the hint names it
 * otherwise (a hidden one is only ever "a <type> that is not public").
 */
const dragSource = (hint: string, name: string | undefined): Node => {
  const target = dragHintTarget(hint)
  if (target !== undefined)
    return el(
      "a",
      { href: `/${PluralOf[target.entity_type]}/${target.slug}` },
      name === undefined
        ? `${target.entity_type} ${target.slug}`
        : `${name} (${TypeNames[target.entity_type]})`
    )
  const type = hint.startsWith("largest drag: ") ? hint.slice("largest drag: ".length) : hint
  return el("span", null, `${/^[aeiou]/.test(type) ? "an" : "a"} ${type} that is not public`)
}

/** The intrinsic pair and the drag, in words (the dragging dependency by the name the caller may read). */
export const dragWords = (card: Scorecard | undefined, dragSourceName?: string): Node => {
  if (card === undefined) return el("p", { class: "lead" }, "Not rated yet: no scorecard has been published.")
  const { composite_score: headline, intrinsic_composite_score: intrinsic } = card
  const sentences: Array<Node | string> = []
  if (headline !== null && intrinsic !== null) {
    const drag = Math.round((intrinsic - headline) * 10) / 10
    sentences.push(
      `On its own answers it scores ${intrinsic} (${card.intrinsic_letter_grade ?? "no grade"}). `
    )
    if (drag > 0) {
      sentences.push(
        `Its dependencies drag the headline down by ${drag.toFixed(1)} points, to ${headline} (${card.grade ?? "no grade"}). `
      )
      if (card.largest_drag_hint !== null)
        sentences.push(
          el(
            "span",
            { "data-figure": "drag-hint" },
            "The largest drag comes from ",
            dragSource(card.largest_drag_hint, dragSourceName),
            ". "
          )
        )
    } else sentences.push("Its dependencies do not drag it: the headline is its intrinsic score. ")
  }
  if (card.has_unrated_dependencies) sentences.push("Some of its dependencies are not rated yet.")
  return el("p", { class: "lead", "data-figure": "drag" }, sentences)
}

/** Domain scores with the weights the caller may read (the Enterprise routes carry them). */
const domainChart = (view: EntityView): Node => {
  if (view.domains === undefined)
    return el(
      "p",
      { class: "muted" },
      "Domain scores are shown to Pro and Enterprise keys: sign in to see them."
    )
  const weights = view.questions?.domain_weights ?? view.evidence?.domain_weights
  const bars = Object.entries(view.domains.domain_scores).map(([domain, score]) => ({
    domain,
    score,
    weight: weights?.[domain]
  }))
  if (bars.length === 0) return el("p", { class: "muted" }, "No domain scores yet.")
  return el(
    "figure",
    null,
    barChart(bars, `Domain scores of ${view.record.name}`),
    el(
      "figcaption",
      { class: "muted" },
      weights === undefined
        ? "Each bar is a domain's score (0-100%). The weights are shown to Enterprise keys."
        : "Each bar is a domain's score (0-100%); the thin bar beneath it, its weight in the composite."
    )
  )
}

const historyTable = (history: NonNullable<EntityView["history"]>): Node =>
  scrollTable(
    { label: "Rating history" },
    el(
      "table",
      null,
      el("caption", null, "Every published version, newest first"),
      el(
        "thead",
        null,
        el(
          "tr",
          null,
          ["Version", "Published", "Grade", "Composite", "Why"].map((h) =>
            el("th", { scope: "col", key: h }, h)
          )
        )
      ),
      el(
        "tbody",
        null,
        history.items.map((h) =>
          el(
            "tr",
            { key: h.scorecard_version },
            el("td", null, String(h.scorecard_version)),
            el("td", null, dateOf(h.published_at)),
            el("td", null, gradeBadge(h.grade)),
            el("td", { class: "num" }, figure(h.composite_score)),
            el("td", null, h.reasoning)
          )
        )
      )
    )
  )

/** The composite and grade over time (Pro and above read the history). */
const historySection = (view: EntityView): Node => {
  if (view.history === undefined)
    return el(
      "p",
      { class: "muted" },
      "The rating history is shown to Pro and Enterprise keys: sign in to see it."
    )
  if (view.history.items.length === 0) return el("p", { class: "muted" }, "No published versions yet.")
  const points = [...view.history.items].reverse().map((h) => ({
    version: h.scorecard_version,
    at: h.published_at,
    composite: h.composite_score,
    grade: h.grade
  }))
  return el(
    "div",
    null,
    lineChart(points, `Composite and grade of ${view.record.name} over time`),
    historyTable(view.history)
  )
}

/** The page's content. */
export const entityContent = (view: EntityView): Node => {
  const card = latestOf(view)
  return el(
    "article",
    null,
    el("p", { class: "muted" }, el("a", { href: `/${PluralOf[view.type]}` }, `All ${PluralOf[view.type]}`)),
    el("h1", null, view.record.name, " ", el("span", { class: "muted" }, `(${TypeNames[view.type]})`)),
    figures(card),
    el("h2", null, "Why this grade"),
    dragWords(card, view.dragSourceName),
    el("h2", null, "Domain scores"),
    domainChart(view),
    el("h2", null, "History"),
    historySection(view),
    details(view)
  )
}
