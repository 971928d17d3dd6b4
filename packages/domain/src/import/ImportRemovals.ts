/**
 * What an import would take away, by the kinds an operator allows with
 * `ratings import --replace <kinds>` (docs/import-format.md, "No silent
 * loss"): stored questions a replaced catalogue no longer lists, rows of the
 * stored quantum snapshot the new one lacks, and published scorecards its
 * publications supersede. Nothing else of the store is removed by an import.
 * Pure functions over a plan, so a dry run and a real run say the same.
 */
import { Result } from "effect"
import type { EntityType } from "../model/EntityType.ts"
import type { ImportPlan, SupersededScorecard } from "./ImportPlan.ts"

export const ReplaceKinds = ["questions", "quantum", "scorecards"] as const
export type ReplaceKind = (typeof ReplaceKinds)[number]

export interface Removals {
  /** Per catalogue, the stored question ids it would no longer list. */
  readonly questions: ReadonlyArray<{ readonly entity_type: EntityType; readonly ids: ReadonlyArray<string> }>
  /** Slugs of the stored quantum rows the new snapshot lacks. */
  readonly quantum: ReadonlyArray<string>
  /** Published scorecards that would stop being their entity's rating. */
  readonly scorecards: ReadonlyArray<SupersededScorecard>
}

export const removalsOf = (plan: ImportPlan): Removals => ({
  questions: plan.catalogues
    .filter((c) => c.replace && c.removedIds.length > 0)
    .map((c) => ({ entity_type: c.entity_type, ids: c.removedIds })),
  quantum: plan.quantum?.removedRows ?? [],
  scorecards: plan.superseded
})

/** How many things of a kind would be removed. */
export const removedCount = (removals: Removals, kind: ReplaceKind): number =>
  kind === "questions"
    ? removals.questions.reduce((n, c) => n + c.ids.length, 0)
    : kind === "quantum"
      ? removals.quantum.length
      : removals.scorecards.length

/** The kinds that would lose something without the operator's leave. */
export const forbiddenKinds = (removals: Removals, allowed: ReadonlySet<ReplaceKind>): Array<ReplaceKind> =>
  ReplaceKinds.filter((k) => removedCount(removals, k) > 0 && !allowed.has(k))

/** `--replace questions,quantum`: the kinds named, or what is wrong with the list. */
export const parseReplaceKinds = (text: string): Result.Result<ReadonlySet<ReplaceKind>, string> => {
  const names = text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")
  const unknown = names.filter((n) => !(ReplaceKinds as ReadonlyArray<string>).includes(n))
  if (unknown.length > 0)
    return Result.fail(
      `--replace names ${unknown.map((n) => JSON.stringify(n)).join(", ")}; the kinds are ${ReplaceKinds.join(", ")}`
    )
  return Result.succeed(new Set(names as Array<ReplaceKind>))
}

const some = (xs: ReadonlyArray<string>, max = 5): string =>
  xs.length <= max ? xs.join(", ") : `${xs.slice(0, max).join(", ")} and ${xs.length - max} more`

/** One line per kind that would lose something: how many, and which. */
export const describeRemovals = (removals: Removals): Array<string> => {
  const lines: Array<string> = []
  for (const c of removals.questions)
    lines.push(
      `questions: ${c.ids.length} ${c.entity_type} question(s) the import's catalogue does not list (${some(c.ids)})`
    )
  if (removals.quantum.length > 0)
    lines.push(
      `quantum: ${removals.quantum.length} row(s) of the stored quantum snapshot the new one lacks (${some(removals.quantum)})`
    )
  if (removals.scorecards.length > 0)
    lines.push(
      `scorecards: ${removals.scorecards.length} published scorecard(s) superseded by a publication (${some(
        removals.scorecards.map((s) => `${s.entity_type} ${s.slug} v${s.scorecard_version}`)
      )})`
    )
  return lines
}

/** The refusal of an import that would remove what `allowed` does not cover; undefined when it may run. */
export const refusalOf = (removals: Removals, allowed: ReadonlySet<ReplaceKind>): string | undefined => {
  const forbidden = forbiddenKinds(removals, allowed)
  if (forbidden.length === 0) return undefined
  const needed = ReplaceKinds.filter(
    (k) => forbidden.includes(k) || (allowed.has(k) && removedCount(removals, k) > 0)
  )
  return [
    "import refused: it would remove stored data, nothing was written",
    ...describeRemovals(removals)
      .filter((l) => forbidden.some((k) => l.startsWith(`${k}:`)))
      .map((l) => `  ${l}`),
    `to allow it, run the import again with --replace ${needed.join(",")}`
  ].join("\n")
}
