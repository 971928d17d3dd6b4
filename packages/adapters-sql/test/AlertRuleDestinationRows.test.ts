/**
 * The dispatcher's destination rows decoded by hand agree with the
 * `DestinationRow` schema: the same values for rows it accepts, and the
 * schema's error for a row it refuses (a URL the checks refuse, a wrong type),
 * also once the URL was accepted on another row.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import { DestinationRow, decodeDestinations } from "../src/alertRules/AlertRuleRows.ts"

const row = (overrides: Record<string, unknown> = {}) => ({
  id: "0b8e7d21-3c4f-4a59-8e6d-1f2a3b4c5d6e",
  webhook_url: "https://hooks.example.com/a",
  signing_key_sealed: "v1:abc:def:ghi",
  previous_key_sealed: null,
  disabled: false,
  failing: true,
  ...overrides
})

describe("decodeDestinations", () => {
  it.effect("decodes accepted rows to what the schema decodes", () =>
    Effect.gen(function* () {
      const rows = [row(), row({ previous_key_sealed: "v1:x:y:z", disabled: true, failing: false }), row()]
      const decoded = yield* decodeDestinations(rows)
      assert.deepStrictEqual(decoded, Schema.decodeUnknownSync(Schema.Array(DestinationRow))(rows))
    })
  )

  it.effect("refuses what the schema refuses, with the schema's message", () =>
    Effect.gen(function* () {
      const bad = [
        row({ webhook_url: "http://[not-an-address]/" }),
        row({ webhook_url: 42 }),
        row({ signing_key_sealed: null }),
        row({ previous_key_sealed: 1 }),
        row({ disabled: "no" }),
        row({ failing: undefined }),
        row({ id: 7 }),
        null
      ]
      for (const b of bad) {
        // The first row's URL is accepted (and remembered) before the bad row is read.
        const exit = yield* Effect.exit(decodeDestinations([row(), b]))
        assert.isTrue(Exit.isFailure(exit), JSON.stringify(b))
        if (Exit.isFailure(exit)) assert.include(String(exit.cause), "a stored row does not decode")
      }
    })
  )
})
