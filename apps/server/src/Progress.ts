/**
 * Progress of long imports and generations on a terminal: one line redrawn in
 * place on a TTY, a line every tenth of the way otherwise (logs, CI).
 */
export type ProgressReporter = (done: number, total: number, phase: string) => void

export const terminalProgress = (
  label: string,
  stream: NodeJS.WriteStream = process.stderr
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
