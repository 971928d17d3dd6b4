/**
 * Charts as SVG rendered on the server: they need no script and no chart
 * library in the browser, and each mark carries a `<title>` (the browser's
 * tooltip, and what a screen reader reads) with its exact figure. A bar
 * chart of domain scores (with their weights when the caller may read them)
 * and a line chart of the composite over time with each version's grade,
 * its date labels kept inside the drawing (the last one ends at its point)
 * and thinned where they would overlap (each point's title keeps its date).
 */
import { el, type Node } from "./Dom.ts"
import { dateOf, domainTitle, percentOf } from "./Words.ts"

export interface Bar {
  readonly domain: string
  /** The domain score, a 0-1 fraction. */
  readonly score: number
  /** The domain's weight in percent, when the caller may read it. */
  readonly weight?: number | undefined
}

const Width = 640
const LabelWidth = 190
const BarArea = 340
const RowHeight = 30

/** Domain scores as horizontal bars (0 to 100%), a weight bar beneath each when known. */
export const barChart = (bars: ReadonlyArray<Bar>, caption: string): Node => {
  const height = bars.length * RowHeight + 24
  return el(
    "svg",
    {
      class: "chart",
      viewBox: `0 0 ${Width} ${height}`,
      role: "img",
      "aria-label": caption
    },
    el("title", null, caption),
    bars.map((bar, i) => {
      const y = 8 + i * RowHeight
      const label = `${domainTitle(bar.domain)}: ${percentOf(bar.score)}${bar.weight === undefined ? "" : `, weight ${bar.weight}%`}`
      return el(
        "g",
        { key: bar.domain, "data-domain": bar.domain, "data-score": bar.score, "data-weight": bar.weight },
        el("title", null, label),
        el("text", { x: 0, y: y + 13 }, domainTitle(bar.domain)),
        el("rect", {
          class: "bar",
          x: LabelWidth,
          y,
          width: Math.round(Math.max(0, Math.min(1, bar.score)) * BarArea * 10) / 10,
          height: bar.weight === undefined ? 18 : 13
        }),
        bar.weight === undefined
          ? null
          : el("rect", {
              class: "weight",
              x: LabelWidth,
              y: y + 15,
              width: (Math.max(0, Math.min(100, bar.weight)) / 100) * BarArea,
              height: 5
            }),
        el(
          "text",
          { x: LabelWidth + BarArea + 8, y: y + 13 },
          `${percentOf(bar.score)}${bar.weight === undefined ? "" : ` (w ${bar.weight}%)`}`
        )
      )
    })
  )
}

export interface Point {
  readonly version: number
  readonly at: string
  readonly composite: number | null
  readonly grade: string | null
}

const PlotLeft = 40
const PlotTop = 16
const PlotWidth = 560
const PlotHeight = 180

/** Roughly how wide a YYYY-MM-DD label is at the chart's 11px type, and the gap kept between two. */
const DateLabelWidth = 62
const DateLabelGap = 8

interface DateLabel {
  readonly x: number
  readonly anchor: "start" | "middle" | "end"
}

/**
 * Where each point's date label goes, if anywhere: the first starts at its
 * point, the last ends at its point (so neither leaves the drawing), the
 * others are centred, and a label that would overlap a neighbour is left out.
 */
export const dateLabels = (xs: ReadonlyArray<number>): ReadonlyArray<DateLabel | undefined> => {
  const last = xs.length - 1
  const placed = xs.map((x, i): DateLabel & { left: number; right: number } => {
    if (last === 0)
      return { x, anchor: "middle", left: x - DateLabelWidth / 2, right: x + DateLabelWidth / 2 }
    if (i === 0) return { x, anchor: "start", left: x, right: x + DateLabelWidth }
    if (i === last) return { x, anchor: "end", left: x - DateLabelWidth, right: x }
    return { x, anchor: "middle", left: x - DateLabelWidth / 2, right: x + DateLabelWidth / 2 }
  })
  const limit = last > 0 ? placed[last]!.left - DateLabelGap : Number.POSITIVE_INFINITY
  let right = Number.NEGATIVE_INFINITY
  return placed.map((label, i) => {
    const fits = i === 0 || i === last || (label.left >= right + DateLabelGap && label.right <= limit)
    if (!fits) return undefined
    right = label.right
    return { x: label.x, anchor: label.anchor }
  })
}

/** The composite (0-100) of each version, oldest first, with its grade printed above its point. */
export const lineChart = (points: ReadonlyArray<Point>, caption: string): Node => {
  const scored = points.filter((p) => p.composite !== null)
  const step = scored.length > 1 ? PlotWidth / (scored.length - 1) : 0
  const xOf = (i: number) => Math.round((PlotLeft + (scored.length > 1 ? i * step : PlotWidth / 2)) * 10) / 10
  const yOf = (v: number) =>
    Math.round((PlotTop + PlotHeight - (Math.max(0, Math.min(100, v)) / 100) * PlotHeight) * 10) / 10
  const line = scored.map((p, i) => `${xOf(i)},${yOf(p.composite!)}`).join(" ")
  const labels = dateLabels(scored.map((_, i) => xOf(i)))
  return el(
    "svg",
    {
      class: "chart",
      viewBox: `0 0 ${PlotLeft + PlotWidth + 30} ${PlotTop + PlotHeight + 36}`,
      role: "img",
      "aria-label": caption
    },
    el("title", null, caption),
    [0, 50, 100].map((v) =>
      el(
        "g",
        { key: `axis-${v}` },
        el("line", { class: "axis", x1: PlotLeft, x2: PlotLeft + PlotWidth, y1: yOf(v), y2: yOf(v) }),
        el("text", { x: 4, y: yOf(v) + 4 }, String(v))
      )
    ),
    scored.length > 1 ? el("polyline", { class: "line", points: line }) : null,
    scored.map((p, i) =>
      el(
        "g",
        {
          key: `v${p.version}`,
          "data-version": p.version,
          "data-composite": p.composite,
          "data-grade": p.grade
        },
        el("title", null, `Version ${p.version}, ${dateOf(p.at)}: ${p.composite} (${p.grade ?? "no grade"})`),
        el("circle", { class: "dot", cx: xOf(i), cy: yOf(p.composite!), r: 4 }),
        el("text", { x: xOf(i) - 8, y: yOf(p.composite!) - 8 }, p.grade ?? ""),
        labels[i] === undefined
          ? null
          : el(
              "text",
              { x: labels[i].x, y: PlotTop + PlotHeight + 18, "text-anchor": labels[i].anchor },
              dateOf(p.at)
            )
      )
    )
  )
}
