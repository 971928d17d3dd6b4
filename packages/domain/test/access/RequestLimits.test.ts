import { assert, describe, it } from "@effect/vitest"
import { Duration } from "effect"
import {
  CoverageRequestAllowance,
  type RateWindow,
  RequestRateLimits
} from "../../src/access/RequestLimits.ts"
import { Tiers } from "../../src/model/Caller.ts"

/** A window as [requests, seconds]. */
const figures = (w: RateWindow) => [w.limit, Duration.toSeconds(Duration.fromInputUnsafe(w.window))]

describe("request rate (spec part 8 Limits)", () => {
  it("request rate: 300 per minute Free, 1,000 per minute Pro, 10,000 per minute Enterprise", () => {
    assert.deepStrictEqual(RequestRateLimits.free.map(figures), [[300, 60]])
    assert.deepStrictEqual(RequestRateLimits.pro.map(figures), [[1_000, 60]])
    assert.deepStrictEqual(RequestRateLimits.enterprise.map(figures), [[10_000, 60]])
  })

  it("anonymous callers: 120 requests per minute and 20,000 per day (api-facts, the live service's published limit)", () => {
    assert.deepStrictEqual(RequestRateLimits.anonymous.map(figures), [
      [120, 60],
      [20_000, 86_400]
    ])
  })

  it("admins get the Enterprise rate: finite, so a leaked token cannot flood the service", () => {
    assert.deepStrictEqual(RequestRateLimits.admin.map(figures), RequestRateLimits.enterprise.map(figures))
  })

  it("every caller kind is limited, and a higher tier never gets a smaller allowance per minute", () => {
    const perMinute = (kind: keyof typeof RequestRateLimits) =>
      Math.min(
        ...RequestRateLimits[kind].map(
          (w) => (w.limit * 60) / Duration.toSeconds(Duration.fromInputUnsafe(w.window))
        )
      )
    for (const kind of [...Tiers, "admin"] as const) assert.isAbove(RequestRateLimits[kind].length, 0, kind)
    for (let i = 1; i < Tiers.length; i++)
      assert.isAtLeast(perMinute(Tiers[i]!), perMinute(Tiers[i - 1]!), `${Tiers[i]} against ${Tiers[i - 1]}`)
  })
})

describe("coverage requests (api-facts: a per-IP allowance far smaller than the read limits)", () => {
  it("coverage requests: 5 an hour per client address, below any caller's request rate", () => {
    assert.deepStrictEqual(figures(CoverageRequestAllowance), [5, 3_600])
    for (const windows of Object.values(RequestRateLimits))
      for (const w of windows) assert.isBelow(CoverageRequestAllowance.limit, w.limit)
  })
})
