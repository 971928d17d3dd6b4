import { assert, describe, it } from "@effect/vitest"
import { ceiling } from "../webhookCeiling.ts"

const targets = { ratio: 0.5, p99Ms: 2_000, processesGain: 1.6 }

describe("webhook fan-out CPU ceiling", () => {
  it("the cost of a delivery is the sum of its processes' CPU, and the cores bound the rate of any number of processes", () => {
    const c = ceiling({
      cores: 2,
      deliveries: 18_000,
      dispatcherUs: 160,
      postgresUs: 98,
      receiverUs: 68,
      baselinePerSecond: 15_512,
      plainUs: 109,
      ...targets
    })
    assert.strictEqual(c.costUs, 326)
    assert.closeTo(c.ceilingPerSecond, 6_135, 1)
  })

  it("one process must reach the ratio's rate or the p99's, whichever is higher, and N processes the gain on it", () => {
    const byRatio = ceiling({
      cores: 2,
      deliveries: 1_000,
      dispatcherUs: 100,
      postgresUs: 50,
      receiverUs: 50,
      baselinePerSecond: 20_000,
      plainUs: 100,
      ...targets
    })
    assert.strictEqual(byRatio.oneProcessPerSecond, 10_000)
    assert.strictEqual(byRatio.manyPerSecond, 16_000)
    assert.strictEqual(byRatio.allowedUs, 125)
    assert.strictEqual(byRatio.leftUs, 25)
    const byP99 = ceiling({
      cores: 4,
      deliveries: 20_000,
      dispatcherUs: 100,
      postgresUs: 50,
      receiverUs: 50,
      baselinePerSecond: 10_000,
      plainUs: 100,
      ...targets
    })
    assert.strictEqual(byP99.oneProcessPerSecond, 9_900)
    assert.closeTo(byP99.allowedUs, 4e6 / (1.6 * 9_900), 1e-9)
    assert.isBelow(byP99.leftUs, byP99.allowedUs)
  })
})
