/**
 * The CPU a webhook fan-out phase costs besides its sender's process: the
 * receiver child and the Postgres backends serving the benchmark's database
 * (not Postgres's shared background processes, which other databases use
 * too). Read from /proc, so Linux only; elsewhere every figure is 0. On a
 * machine of few cores these compete with the sender, so the sum per
 * delivery is what bounds the rate.
 */
import { readFileSync } from "node:fs"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"

/** Linux reports process times in USER_HZ ticks, 100 a second on every architecture. */
const TicksPerSecond = 100

/** User plus system CPU time of a process so far, ms (0 if it is gone or there is no /proc). */
export const processCpuMs = (pid: number): number => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    // The fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TicksPerSecond
  } catch {
    return 0
  }
}

/** The CPU of the bench database's backends so far, ms by pid. */
const backendsCpu = (sql: SqlClient.SqlClient) =>
  Effect.map(
    sql<{ readonly pid: number }>`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`,
    (rows) => new Map(rows.map(({ pid }) => [pid, processCpuMs(pid)]))
  )

export interface CpuBudget {
  /** The bench database's Postgres backends, ms. */
  readonly postgresMs: number
  /** The receiver process, ms. */
  readonly receiverMs: number
}

/**
 * Runs `phase` and measures the CPU the database's backends and the receiver
 * used meanwhile; a backend that ended during the phase is not counted.
 */
export const withCpuBudget = <A, E, R>(
  sql: SqlClient.SqlClient,
  receiverPid: number,
  phase: Effect.Effect<A, E, R>
) =>
  Effect.gen(function* () {
    const before = yield* backendsCpu(sql)
    const receiverBefore = processCpuMs(receiverPid)
    const result = yield* phase
    const receiverMs = processCpuMs(receiverPid) - receiverBefore
    const after = yield* backendsCpu(sql)
    let postgresMs = 0
    for (const [pid, ms] of after) postgresMs += ms - (before.get(pid) ?? 0)
    return [result, { postgresMs, receiverMs } satisfies CpuBudget] as const
  })
