/**
 * The read benchmark's before-and-after column (readBefore.ts): BEFORE must
 * name a checkout with its dependencies, and each row measured beside before
 * is held to 0.90x of it, from the means of its alternated rounds.
 */
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { meanCell } from "../read.bench.ts"
import { BeforeFloor, beforeAfterOf, beforeScript, beforeTable, beforeTargets } from "../readBefore.ts"

const cell = (rps: number) => ({ rps, p99: 5, errors: 0, non2xx: 0 })

describe("read bench: before and after", () => {
  it("BEFORE names a checkout with bench/readServer.ts and node_modules, or the bench refuses to start", () => {
    assert.isUndefined(beforeScript({}))
    const dir = mkdtempSync(join(tmpdir(), "read-before-"))
    assert.throws(() => beforeScript({ BEFORE: dir }), /readServer\.ts does not exist/)
    mkdirSync(join(dir, "bench"))
    writeFileSync(join(dir, "bench", "readServer.ts"), "")
    assert.throws(() => beforeScript({ BEFORE: dir }), /no node_modules/)
    mkdirSync(join(dir, "node_modules"))
    assert.strictEqual(beforeScript({ BEFORE: dir }), join(dir, "bench", "readServer.ts"))
  })

  it("a row passes at 0.90x of before or better, from the means of its rounds", () => {
    const beside = beforeAfterOf([cell(900), cell(1000)], [cell(1000), cell(1000)], meanCell)
    const slower = beforeAfterOf([cell(800), cell(900)], [cell(1000), cell(1000)], meanCell)
    const [ok, short] = beforeTargets([
      { route: "list", caller: "anonymous", beside },
      { route: "list", caller: "enterprise", beside: slower },
      { route: "detail-slug", caller: "anonymous" }
    ]).map((t) => t)
    assert.strictEqual(BeforeFloor, 0.9)
    assert.isTrue(ok!.pass, ok!.detail)
    assert.closeTo(ok!.value, 0.95, 1e-9)
    assert.isFalse(short!.pass)
    assert.include(short!.detail!, "0.80x, 0.90x")
    assert.lengthOf(beforeTable([{ route: "list", caller: "anonymous", beside }]), 6)
    assert.deepStrictEqual(beforeTable([{ route: "list", caller: "anonymous" }]), [])
  })
})
