import { assert, describe, it } from "@effect/vitest"
import { sameContent } from "../../src/import/ImportStoreView.ts"

// What an import file says, and what a store gives back for it: Postgres reads a
// timestamptz back to the millisecond in the form the service writes (isoTimestamp).
const input = {
  slug: "aave-v4",
  created_at: "2026-08-01T00:00:00Z",
  updated_at: "2026-08-02T14:00:00.123456+02:00",
  chains: [{ slug: "ethereum", name: "Ethereum" }]
}
const storedByPostgres = {
  chains: [{ name: "Ethereum", slug: "ethereum" }],
  updated_at: "2026-08-02T12:00:00.123000+00:00",
  created_at: "2026-08-01T00:00:00+00:00",
  slug: "aave-v4"
}

describe("ImportStoreView", () => {
  it("re-importing rewrites nothing: a date-time read back in the service's form (+00:00, to the millisecond) is the same content as the input's spelling", () => {
    assert.isTrue(sameContent(input, storedByPostgres))
    assert.isTrue(sameContent(storedByPostgres, input))
    // The memory stores echo the input's text.
    assert.isTrue(sameContent(input, structuredClone(input)))
  })

  it("a different instant, or a different non-date string, is a change", () => {
    assert.isFalse(sameContent(input, { ...storedByPostgres, created_at: "2026-08-01T00:00:01+00:00" }))
    assert.isFalse(
      sameContent(input, { ...storedByPostgres, updated_at: "2026-08-02T12:00:00.124000+00:00" })
    )
    assert.isFalse(sameContent(input, { ...storedByPostgres, slug: "aave-v3" }))
  })
})
