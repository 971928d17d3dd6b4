/**
 * The order test files start in: longest first, whichever project they are in,
 * so that the end-to-end files that spend a minute waiting on processes and
 * leases start at once and overlap the short files, instead of starting last
 * and running alone at the end (Vitest's own order runs the projects one
 * after the other, by name).
 *
 * A file's length is its duration in the previous run when Vitest's results
 * cache has one; otherwise (a fresh clone, as in CI) an estimate from its
 * project (end-to-end files take seconds to a minute, adapter files about a
 * second, domain files milliseconds) and its size.
 */
import { statSync } from "node:fs"
import { BaseSequencer, type TestSpecification } from "vitest/node"

/** Rough milliseconds of a file of each project, before the first run measures it. */
const Estimates: Record<string, number> = { e2e: 20_000, adapters: 2_000, domain: 50 }

export default class LongestFirst extends BaseSequencer {
  override async sort(files: Array<TestSpecification>): Promise<Array<TestSpecification>> {
    const expected = new Map(
      files.map((spec) => {
        const previous = this.ctx.cache.getTestSpecificationResult(spec)
        if (previous?.failed) return [spec, Number.POSITIVE_INFINITY] as const
        if (previous !== undefined) return [spec, previous.duration] as const
        const size = statSync(spec.moduleId, { throwIfNoEntry: false })?.size ?? 0
        return [spec, (Estimates[spec.project.name] ?? 1_000) + size / 100] as const
      })
    )
    return [...files].sort(
      (a, b) =>
        a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder ||
        expected.get(b)! - expected.get(a)!
    )
  }
}
