import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { repeatFreeRuns } from "../../src/ports/ScorecardRepository.ts"

describe("repeatFreeRuns", () => {
  it("splits into consecutive runs, in order, none repeating a key, each cut forced by a repeat", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 8 }), { maxLength: 60 }), (keys) => {
        const runs = repeatFreeRuns(keys, String)
        assert.deepStrictEqual(runs.flat(), keys)
        for (const run of runs) {
          assert.isAbove(run.length, 0)
          assert.strictEqual(new Set(run).size, run.length)
        }
        runs.slice(1).forEach((run, i) => {
          assert.include(runs[i]!, run[0]!, "a run ends only where its next item would repeat")
        })
      })
    )
  })
})
