/**
 * Small pieces the explorer's pages share: the grade badge (the letter always
 * printed, its colour only an extra), the last-change cell, an incident tier
 * badge, a page of a paged list's links, the message page a refused or
 * unknown request gets, and the named scroll region a wide table sits in.
 */
import { el, type Node } from "./Dom.ts"
import { dateOf, gradeRank } from "./Words.ts"

/**
 * A table in a region of its own that scrolls sideways when the table is
 * wider than the screen (so the page never does), named for assistive
 * technology and focusable so a keyboard can scroll it.
 */
export const scrollTable = (
  name: { readonly label: string } | { readonly labelledBy: string },
  table: Node
): Node =>
  el(
    "div",
    {
      class: "table-wrap",
      role: "region",
      tabindex: 0,
      ...("label" in name ? { "aria-label": name.label } : { "aria-labelledby": name.labelledBy })
    },
    table
  )

/** A grade as a badge; an unrated entity says so in words. */
export const gradeBadge = (grade: string | null, big = false): Node =>
  grade === null
    ? el("span", { class: "grade grade-none" }, "not rated")
    : el("span", { class: `grade grade-${grade}${big ? " big" : ""}`, title: `Grade ${grade}` }, grade)

/** How the latest rating compares with the one before it. */
export type Direction = "up" | "down" | "same" | "new" | "updated"

const DirectionWords: Record<Direction, string> = {
  up: "▲ up",
  down: "▼ down",
  same: "= unchanged",
  new: "new",
  updated: "updated"
}

/** A last-change cell's content: the date and the direction in words (an arrow is an extra). */
export const changeOf = (at: string | null, direction: Direction | null): Node =>
  at === null
    ? el("span", { class: "muted" }, "–")
    : el(
        "span",
        { class: direction === "up" || direction === "down" ? `change-${direction}` : undefined },
        `${dateOf(at)} `,
        direction === null ? null : DirectionWords[direction]
      )

/** An incident tier as a badge (the tier's name printed). */
export const tierBadge = (tier: string): Node => el("span", { class: `tier tier-${tier}` }, tier)

/** The pager of a list: where it is, and links to the pages before and after. */
export const pager = (page: number, pages: number, total: number, hrefOf: (page: number) => string): Node =>
  el(
    "nav",
    { class: "pager", "aria-label": "Pages" },
    page > 1 ? el("a", { href: hrefOf(page - 1), rel: "prev" }, "← Previous") : null,
    el("span", null, `Page ${Math.min(page, Math.max(pages, 1))} of ${Math.max(pages, 1)} (${total} in all)`),
    page < pages ? el("a", { href: hrefOf(page + 1), rel: "next" }, "Next →") : null
  )

/** The body of a page that only says something (not found, refused, bad request). */
export const messageBody = (heading: string, message: string): Node =>
  el(
    "section",
    null,
    el("h1", null, heading),
    el("p", { class: "lead" }, message),
    el("p", null, el("a", { href: "/" }, "Go to the home page"))
  )

/** The sort value a grade cell carries for the script (best highest). */
export const gradeSortValue = (grade: string | null): number => gradeRank(grade)
