/**
 * The transport's POST budgets on one timer: each POST expires once, about
 * its own deadline, whatever the others' timeouts; a POST that ended never
 * expires; and no timer is left armed once nothing is in flight.
 */
import { assert, describe, it } from "@effect/vitest"
import { type Deadline, PostDeadlines } from "../src/PostDeadlines.ts"

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** A POST started now with `timeoutMs`, recording when (ms after `t0`) it expired. */
const post = (timeoutMs: number, expired: Array<[number, number]>, t0: number, id: number): Deadline => ({
  timeoutMs,
  deadline: performance.now() + timeoutMs,
  expire: () => void expired.push([id, performance.now() - t0])
})

describe("PostDeadlines", () => {
  it("expires each POST once at its deadline, in deadline order across timeouts", async () => {
    const deadlines = new PostDeadlines()
    const expired: Array<[number, number]> = []
    const t0 = performance.now()
    const posts = [post(80, expired, t0, 0), post(20, expired, t0, 1), post(50, expired, t0, 2)]
    for (const p of posts) deadlines.add(p)
    await sleep(5)
    const late = post(20, expired, t0, 3)
    deadlines.add(late)
    await sleep(300)
    assert.deepStrictEqual(
      expired.map(([id]) => id),
      [1, 3, 2, 0]
    )
    for (const [id, at] of expired) {
      const p = id === 3 ? late : posts[id]!
      assert.isAtLeast(at + t0, p.deadline - 1, `post ${id}`)
      assert.isBelow(at + t0, p.deadline + 150, `post ${id}`)
    }
  })

  it("a POST removed before its deadline never expires; removing it twice does nothing", async () => {
    const deadlines = new PostDeadlines()
    const expired: Array<[number, number]> = []
    const t0 = performance.now()
    const first = post(20, expired, t0, 0)
    const second = post(40, expired, t0, 1)
    deadlines.add(first)
    deadlines.add(second)
    deadlines.remove(first)
    deadlines.remove(first)
    await sleep(80)
    assert.deepStrictEqual(
      expired.map(([id]) => id),
      [1]
    )
  })

  it("arms no timer while nothing is in flight, and re-arms for a POST added later", async () => {
    const deadlines = new PostDeadlines()
    const expired: Array<[number, number]> = []
    const t0 = performance.now()
    const active = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length
    const before = active()
    const p = post(30, expired, t0, 0)
    deadlines.add(p)
    assert.strictEqual(active(), before + 1)
    deadlines.remove(p)
    assert.strictEqual(active(), before)
    deadlines.add(post(10, expired, t0, 1))
    await sleep(50)
    assert.deepStrictEqual(
      expired.map(([id]) => id),
      [1]
    )
    assert.strictEqual(active(), before)
  })
})
