/**
 * Import progress: the terminal bar as a pure function of counts and times
 * (bar, rate, time remaining), its redraws bounded in rate, a line per phase;
 * and the plain lines of a non-terminal exactly as logs and tests read them.
 */
import { assert, describe, it } from "@effect/vitest"
import { formatDuration, RedrawMillis, renderProgress, terminalProgress } from "../src/Progress.ts"

const frame = { label: "import", phase: "entities", phaseDone: 0, phaseStartedAt: 0 }

const capture = (isTTY: boolean) => {
  const out: Array<string> = []
  return { stream: { isTTY, write: (t: string) => out.push(t) }, out }
}

describe("renderProgress", () => {
  it("draws the bar, the percentage, the rate of the phase and the time left", () => {
    const line = renderProgress({ ...frame, done: 500, total: 1000, now: 2000 })
    assert.strictEqual(
      line,
      `import entities [${"#".repeat(12)}${"-".repeat(12)}]  50% 500/1000 250/s 0:02 left`
    )
  })

  it("counts the rate from the phase's own start, not the import's", () => {
    const line = renderProgress({
      ...frame,
      done: 3000,
      total: 9000,
      phaseDone: 1000,
      phaseStartedAt: 10_000,
      now: 12_000
    })
    assert.include(line, " 1,000/s ")
    assert.include(line, "0:06 left")
  })

  it("says how long a finished phase took, and has no rate before the first step", () => {
    assert.match(
      renderProgress({ ...frame, done: 10, total: 10, now: 65_000 }),
      /\[#{24}\] 100% 10\/10 \S+ done in 1:05$/
    )
    assert.match(
      renderProgress({ ...frame, done: 0, total: 10, now: 0 }),
      /\[-{24}\] {3}0% 0\/10 -\/s --:-- left$/
    )
  })

  it("formats durations as m:ss, and h:mm:ss from an hour on", () => {
    assert.deepStrictEqual(
      [formatDuration(0), formatDuration(61_000), formatDuration(3_725_000)],
      ["0:00", "1:01", "1:02:05"]
    )
  })
})

describe("terminalProgress", () => {
  it("on a terminal redraws in place at a bounded rate, one line per phase", () => {
    const { stream, out } = capture(true)
    let now = 0
    const report = terminalProgress("import", stream, () => now)
    for (let done = 1; done <= 100; done++) {
      now += 1 // a hundred steps in 100 ms: one or two redraws, not a hundred
      report(done, 200, "entities")
    }
    const redraws = out.filter((t) => t.startsWith("\r")).length
    assert.isAtMost(redraws, Math.ceil(100 / RedrawMillis) + 1)
    now += 5
    report(150, 200, "questions") // the phase ends: its last state is drawn, then a new line
    now += 500
    report(200, 200, "questions")
    const text = out.join("")
    assert.include(text, "import entities [############------------]  50% 100/200")
    const ended = text.indexOf("\rimport questions")
    assert.isTrue(text.slice(0, ended).endsWith("\u001b[K\n"), "the entities line ends before the next phase")
    assert.include(text.slice(0, ended).split("\r").at(-1), "100/200")
    assert.isTrue(text.endsWith("done in 0:01\u001b[K\n"), JSON.stringify(text.slice(-60)))
  })

  it("given a phase's own counts, the bar measures the phase, and a phase met again goes on from where it was", () => {
    const { stream, out } = capture(true)
    let now = 0
    const report = terminalProgress("import", stream, () => now)
    now = 1000
    report(50, 400, "scorecards", { done: 50, total: 100 })
    now = 2000
    report(250, 400, "publications", { done: 200, total: 300 })
    now = 3000
    report(300, 400, "scorecards", { done: 100, total: 100 })
    now = 4000
    report(400, 400, "publications", { done: 300, total: 300 })
    const lines = out
      .join("")
      .split("\n")
      .map((l) => l.split("\r").at(-1)!.replace("\u001b[K", ""))
    assert.deepStrictEqual(lines.slice(0, 4), [
      `import scorecards [${"#".repeat(12)}${"-".repeat(12)}]  50% 50/100 50/s 0:01 left`,
      `import publications [${"#".repeat(16)}${"-".repeat(8)}]  66% 200/300 200/s 0:01 left`,
      `import scorecards [${"#".repeat(24)}] 100% 100/100 50/s done in 0:01`,
      `import publications [${"#".repeat(24)}] 100% 300/300 100/s done in 0:01`
    ])
  })

  it("elsewhere writes the plain lines as before, one every tenth of the way", () => {
    const { stream, out } = capture(false)
    const report = terminalProgress("import", stream, () => 0)
    for (let done = 0; done <= 20; done++) report(done, 20, done < 10 ? "entities" : "scorecards")
    assert.deepStrictEqual(out, [
      "import entities: 0/20 (0%)\n",
      "import entities: 2/20 (10%)\n",
      "import entities: 4/20 (20%)\n",
      "import entities: 6/20 (30%)\n",
      "import entities: 8/20 (40%)\n",
      "import scorecards: 10/20 (50%)\n",
      "import scorecards: 12/20 (60%)\n",
      "import scorecards: 14/20 (70%)\n",
      "import scorecards: 16/20 (80%)\n",
      "import scorecards: 18/20 (90%)\n",
      "import scorecards: 20/20 (100%)\n"
    ])
  })
})
