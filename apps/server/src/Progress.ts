/**
 * Progress of long imports and generations. On a terminal: a bar per phase
 * with the rate and the time remaining, redrawn in place at most every
 * `RedrawMillis` (and always at a phase's end). Elsewhere (logs, CI): a plain
 * line every tenth of the way. `renderProgress` draws one bar from given
 * counts and times, a pure function.
 */
import { Context, Effect } from "effect"

/** Steps done of the whole run, the phase's name, and, when known, the steps done of that phase alone. */
export type ProgressReporter = (
  done: number,
  total: number,
  phase: string,
  inPhase?: { readonly done: number; readonly total: number }
) => void

/** What progress is written to: standard error of the process, or what an in-process run captures. */
export interface ProgressStream {
  readonly isTTY?: boolean | undefined
  write(text: string): unknown
}

/** The stream the commands' progress goes to: the process's standard error unless a run provides another. */
export const ProgressOutput = Context.Reference<ProgressStream>("@ratings/server/Progress/ProgressOutput", {
  defaultValue: () => process.stderr
})

/** The shortest time between two redraws of a terminal bar. */
export const RedrawMillis = 100
const BarWidth = 24

export interface ProgressFrame {
  readonly label: string
  readonly phase: string
  readonly done: number
  readonly total: number
  /** Steps done when the phase (or this stretch of it) began, and when, in ms: the rate is the phase's own. */
  readonly phaseDone: number
  readonly phaseStartedAt: number
  readonly now: number
}

/** `m:ss`, or `h:mm:ss` from an hour on. */
export const formatDuration = (millis: number): string => {
  const s = Math.max(0, Math.round(millis / 1000))
  const hh = Math.floor(s / 3600)
  const mm = Math.floor((s % 3600) / 60)
  const ss = String(s % 60).padStart(2, "0")
  return hh > 0 ? `${hh}:${String(mm).padStart(2, "0")}:${ss}` : `${mm}:${ss}`
}

/** One terminal line: `import entities [#####-----]  50% 500/1000 250/s 0:02 left`. */
export const renderProgress = (f: ProgressFrame): string => {
  const ratio = f.total > 0 ? Math.min(1, f.done / f.total) : 1
  const filled = Math.round(ratio * BarWidth)
  const bar = `[${"#".repeat(filled)}${"-".repeat(BarWidth - filled)}]`
  const pct = `${Math.floor(ratio * 100)}%`.padStart(4)
  const elapsed = f.now - f.phaseStartedAt
  const steps = f.done - f.phaseDone
  const rate = elapsed > 0 ? (steps * 1000) / elapsed : 0
  const rateText = elapsed > 0 && steps > 0 ? `${Math.round(rate).toLocaleString("en-US")}/s` : "-/s"
  const left =
    f.done >= f.total
      ? `done in ${formatDuration(elapsed)}`
      : rate > 0
        ? `${formatDuration(((f.total - f.done) / rate) * 1000)} left`
        : "--:-- left"
  return `${f.label} ${f.phase} ${bar} ${pct} ${f.done}/${f.total} ${rateText} ${left}`
}

/** The plain line of a non-terminal: unchanged, as logs and tests read it. */
const plainLine = (label: string, phase: string, done: number, total: number): string => {
  const pct = total > 0 ? Math.min(100, Math.floor((done / total) * 100)) : 100
  return `${label} ${phase}: ${done}/${total} (${pct}%)\n`
}

const terminalBar = (label: string, stream: ProgressStream, clock: () => number): ProgressReporter => {
  let current: ProgressFrame | undefined
  let drawnAt = Number.NEGATIVE_INFINITY
  let drawn = true
  let lastAt = clock()
  let lastAll = 0
  const phaseDone = new Map<string, number>()
  const draw = (frame: ProgressFrame) => {
    stream.write(`\r${renderProgress(frame)}\u001b[K`)
    drawnAt = frame.now
    drawn = true
  }
  return (allDone, allTotal, phase, inPhase) => {
    const now = clock()
    // The bar measures the phase when its own counts are given, else the whole run.
    const done = inPhase?.done ?? allDone
    const total = inPhase?.total ?? allTotal
    if (current !== undefined && phase !== current.phase) {
      // The last state of the phase that ends stays on screen, on its own line.
      if (!drawn) draw(current)
      stream.write("\n")
      current = undefined
    }
    // A phase begins where the previous report left off: its first steps count in its rate.
    const from = inPhase === undefined ? lastAll : (phaseDone.get(phase) ?? 0)
    current =
      current === undefined
        ? { label, phase, done, total, phaseDone: from, phaseStartedAt: lastAt, now }
        : { ...current, done, total, now }
    const finished = allDone >= allTotal
    lastAt = now
    lastAll = finished ? 0 : allDone
    if (inPhase !== undefined) phaseDone.set(phase, inPhase.done)
    drawn = false
    if (finished || now - drawnAt >= RedrawMillis) draw(current)
    if (finished) {
      stream.write("\n")
      current = undefined
      phaseDone.clear()
    }
  }
}

export const terminalProgress = (
  label: string,
  stream: ProgressStream = process.stderr,
  clock: () => number = Date.now
): ProgressReporter => {
  if (stream.isTTY) return terminalBar(label, stream, clock)
  let lastTenth = -1
  return (done, total, phase) => {
    const pct = total > 0 ? Math.min(100, Math.floor((done / total) * 100)) : 100
    const tenth = Math.floor(pct / 10)
    if (tenth !== lastTenth || (done >= total && lastTenth !== 10)) {
      lastTenth = done >= total ? 10 : tenth
      stream.write(plainLine(label, phase, done, total))
    }
  }
}

/** A command's progress reporter, on the run's ProgressOutput. */
export const progressReporter = (label: string): Effect.Effect<ProgressReporter> =>
  Effect.map(Effect.service(ProgressOutput), (stream) => terminalProgress(label, stream))
