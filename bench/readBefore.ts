/**
 * The read benchmark's before-and-after column: with BEFORE=<dir> (a checkout
 * of an earlier commit, its dependencies installed), that commit's own
 * bench/readServer.ts (cache on) serves the same database beside ours, and
 * every loaded row is measured on the two in turn, the order flipped each
 * round, so a drift of the machine weighs on both alike. Target: each cached
 * row at least 0.90x of before. Used by read.bench.ts.
 */
import { existsSync } from "node:fs"
import { join, resolve } from "node:path"

/** One measured run of one server (read.bench.ts Cell). */
export interface BeforeCell {
  readonly rps: number
  readonly p99: number
  readonly errors: number
  readonly non2xx: number
}

/** A row's before-and-after rounds: the mean of each side and each round's two figures. */
export interface BeforeAfter {
  readonly after: BeforeCell
  readonly before: BeforeCell
  readonly rounds: ReadonlyArray<{ readonly after: number; readonly before: number }>
}

/** Cached rows at least this share of before: "within 10 % of before or better". */
export const BeforeFloor = 0.9

/** The earlier checkout's server script, checked before anything starts; undefined without BEFORE. */
export const beforeScript = (env: NodeJS.ProcessEnv): string | undefined => {
  const dir = env.BEFORE
  if (dir === undefined || dir === "") return undefined
  const script = join(resolve(dir), "bench", "readServer.ts")
  if (!existsSync(script))
    throw new Error(`BEFORE: ${script} does not exist (a checkout of the repo is expected)`)
  if (!existsSync(join(resolve(dir), "node_modules")))
    throw new Error(`BEFORE: ${dir} has no node_modules (run npm ci there first)`)
  return script
}

/** The two sides' cells round by round as the row's figures. */
export const beforeAfterOf = (
  after: ReadonlyArray<BeforeCell>,
  before: ReadonlyArray<BeforeCell>,
  mean: (cells: ReadonlyArray<BeforeCell>) => BeforeCell
): BeforeAfter => ({
  after: mean(after),
  before: mean(before),
  rounds: after.map((c, i) => ({ after: c.rps, before: before[i]!.rps }))
})

/** The target of each row measured beside before. */
export const beforeTargets = (
  rows: ReadonlyArray<{
    readonly route: string
    readonly caller: string
    readonly beside?: BeforeAfter | undefined
  }>
) =>
  rows.flatMap((r) => {
    if (r.beside === undefined) return []
    const value = r.beside.after.rps / r.beside.before.rps
    return [
      {
        name: `${r.route} as ${r.caller}: after / before (cache)`,
        value,
        min: BeforeFloor,
        unit: "x" as const,
        pass: value >= BeforeFloor,
        detail:
          `${Math.round(r.beside.after.rps)} req/s after, ${Math.round(r.beside.before.rps)} before, ` +
          `means of ${r.beside.rounds.length} alternated rounds (each: ` +
          `${r.beside.rounds.map((p) => `${(p.after / p.before).toFixed(2)}x`).join(", ")})`
      }
    ]
  })

/** The Markdown lines of the before-and-after rows (none without BEFORE). */
export const beforeTable = (
  rows: ReadonlyArray<{
    readonly route: string
    readonly caller: string
    readonly beside?: BeforeAfter | undefined
  }>
): ReadonlyArray<string> => {
  const measured = rows.filter((r) => r.beside !== undefined)
  if (measured.length === 0) return []
  const cell = (c: BeforeCell) => `${Math.round(c.rps).toLocaleString("en-US")} (${Math.round(c.p99)})`
  return [
    "before and after, the cached server of each in turn (req/s (p99 ms), means of the rounds):",
    "",
    "| route | caller | before | after | after / before |",
    "| --- | --- | ---: | ---: | ---: |",
    ...measured.map(
      (r) =>
        `| ${r.route} | ${r.caller} | ${cell(r.beside!.before)} | ${cell(r.beside!.after)} | ${(r.beside!.after.rps / r.beside!.before.rps).toFixed(2)}x |`
    ),
    ""
  ]
}
