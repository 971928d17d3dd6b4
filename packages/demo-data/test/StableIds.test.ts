import { assert, describe, it } from "@effect/vitest"
import { seededRandom, unitHash } from "../src/SeededRandom.ts"
import { uuidV5 } from "../src/StableIds.ts"

describe("StableIds and SeededRandom", () => {
  it("uuidV5 follows RFC 4122 (the DNS-namespace vector for www.example.com)", () => {
    assert.strictEqual(
      uuidV5("www.example.com", "6ba7b810-9dad-11d1-80b4-00c04fd430c8"),
      "2ed6657d-e927-568b-95e1-2665a8aea6a2"
    )
  })

  it("the same seed gives the same sequence and UUIDs; another seed does not", () => {
    const draw = (seed: string) => {
      const r = seededRandom(seed)
      return [r.next(), r.int(1000), r.uuid(), r.uuid()]
    }
    assert.deepStrictEqual(draw("s"), draw("s"))
    assert.notDeepEqual(draw("s"), draw("t"))
    const uuid = seededRandom("u").uuid()
    assert.match(uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  })

  it("unitHash is a stable number in [0, 1)", () => {
    for (const key of ["", "a", "protocol:aave-v3|PROT-SEC-01"]) {
      const h = unitHash(key)
      assert.strictEqual(h, unitHash(key))
      assert.isAtLeast(h, 0)
      assert.isBelow(h, 1)
    }
  })
})
