/**
 * Progress of long imports and generations on a terminal: one line redrawn in
 * place on a TTY, a line every tenth of the way otherwise (logs, CI).
 */
import { Context, Effect } from "effect"

export type ProgressReporter = (done: number, total: number, phase: string) => void

/** What progress is written to: standard error of the process, or what an in-process run captures. */
export interface ProgressStream {
  readonly isTTY?: boolean | undefined
  write(text: string): unknown
}

/** The stream the commands' progress goes to: the process's standard error unless a run provides another. */
export const ProgressOutput = Context.Reference<ProgressStream>("@ratings/server/Progress/ProgressOutput", {
  defaultValue: () => process.stderr
})

export const terminalProgress = (
  label: string,
  stream: ProgressStream = process.stderr
): ProgressReporter => {
  let lastTenth = -1
  return (done, total, phase) => {
    const pct = total > 0 ? Math.min(100, Math.floor((done / total) * 100)) : 100
    if (stream.isTTY) {
      stream.write(`\r${label} ${phase}: ${done}/${total} (${pct}%)\u001b[K`)
      if (done >= total) stream.write("\n")
      return
    }
    const tenth = Math.floor(pct / 10)
    if (tenth !== lastTenth || (done >= total && lastTenth !== 10)) {
      lastTenth = done >= total ? 10 : tenth
      stream.write(`${label} ${phase}: ${done}/${total} (${pct}%)\n`)
    }
  }
}

/** A command's progress reporter, on the run's ProgressOutput. */
export const progressReporter = (label: string): Effect.Effect<ProgressReporter> =>
  Effect.map(Effect.service(ProgressOutput), (stream) => terminalProgress(label, stream))
