import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import { ExternalIds, externalIdStatus } from "../../src/model/ExternalIds.ts"

const decode = Schema.decodeUnknownResult(ExternalIds)
const encode = Schema.encodeUnknownResult(ExternalIds)

describe("ExternalIds", () => {
  it("external_ids is a map from provider key to string and round-trips", () => {
    const ids = { defillama: "aave-v3", coingecko: "aave" }
    const decoded = Schema.decodeUnknownSync(ExternalIds)(ids)
    assert.deepStrictEqual(Schema.encodeSync(ExternalIds)(decoded), ids)
    assert.isTrue(Result.isFailure(decode({ defillama: 42 })))
  })

  it("when a counterpart was checked and none exists the map holds <provider>_note and the provider key stays absent", () => {
    const checkedNone = {
      coingecko_note: "no token: the protocol has no governance token",
      defillama: "aave"
    }
    assert.deepStrictEqual(Schema.decodeUnknownSync(ExternalIds)(checkedNone), checkedNone)

    const both = { coingecko: "aave", coingecko_note: "checked, none" }
    const decoded = decode(both)
    assert.isTrue(Result.isFailure(decoded))
    if (Result.isFailure(decoded)) {
      assert.include(decoded.failure.message, `both "coingecko" and "coingecko_note"`)
      assert.include(decoded.failure.message, "must stay absent")
    }
    // The rule also guards what the service writes: an inconsistent map is not encoded.
    assert.isTrue(Result.isFailure(encode(both)))
  })

  it("any unrecognised key is free-form metadata passed through on decode and encode", () => {
    const ids = { defillama: "aave", "x-imported-from": "sheet 2026-07", _note: "bare note", legacy_id: "17" }
    const decoded = Schema.decodeUnknownSync(ExternalIds)(ids)
    assert.deepStrictEqual(decoded, ids)
    assert.deepStrictEqual(Schema.encodeSync(ExternalIds)(decoded), ids)
  })

  it("externalIdStatus: an absent provider key means not mapped; a note means checked with no counterpart", () => {
    const ids = { defillama: "aave", coingecko_note: "no token" }
    assert.deepStrictEqual(externalIdStatus(ids, "defillama"), { _tag: "Mapped", id: "aave" })
    assert.deepStrictEqual(externalIdStatus(ids, "coingecko"), { _tag: "CheckedNone", note: "no token" })
    assert.deepStrictEqual(externalIdStatus(ids, "l2beat"), { _tag: "Unmapped" })
    // Inherited names are not provider keys.
    assert.deepStrictEqual(externalIdStatus(ids, "toString"), { _tag: "Unmapped" })
  })
})
