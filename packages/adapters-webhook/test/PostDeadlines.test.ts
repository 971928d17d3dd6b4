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
    const posts = [post(120, expired, t0, 0), post(20, expired, t0, 1), post(70, expired, t0, 2)]
    for (const p of posts) deadlines.add(p)
    await sleep(5)
    // Started later with the shortest timeout: its deadline falls among the others'.
    posts.push(post(20, expired, t0, 3))
    deadlines.add(posts[3]!)
    await sleep(400)
    const byDeadline = [...posts].sort((a, b) => a.deadline - b.deadline).map((p) => posts.indexOf(p))
    assert.deepStrictEqual(
      expired.map(([id]) => id),
      byDeadline
    )
    for (const [id, at] of expired) {
      assert.isAtLeast(at + t0, posts[id]!.deadline - 1, `post ${id}`)
      assert.isBelow(at + t0, posts[id]!.deadline + 250, `post ${id}`)
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
    assert.isFalse(deadlines.armed)
    const p = post(30, expired, t0, 0)
    deadlines.add(p)
    assert.isTrue(deadlines.armed)
    deadlines.remove(p)
    assert.isFalse(deadlines.armed)
    deadlines.add(post(10, expired, t0, 1))
    assert.isTrue(deadlines.armed)
    await sleep(50)
    assert.deepStrictEqual(
      expired.map(([id]) => id),
      [1]
    )
    assert.isFalse(deadlines.armed)
  })
})
