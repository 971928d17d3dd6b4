/**
 * Prints one plain closing line, `tests: N passed, N failed[, N skipped]`, after
 * Vitest's own report, so any reader of the log (CI included) gets the counts
 * in the conventional form.
 */
import type { Reporter, TestModule } from "vitest/node";
export default class SummaryReporter implements Reporter {
    onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void;
}
//# sourceMappingURL=vitest.summary.d.ts.map