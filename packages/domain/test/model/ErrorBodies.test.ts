import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import {
  InsufficientTierBody,
  InvalidKeyBody,
  MissingKeyBody,
  NotFoundBody,
  RateLimitedBody,
  UnauthorizedBody,
  ValidationErrorBody
} from "../../src/model/ErrorBodies.ts"

const roundTrip = <S extends Schema.Codec<unknown, unknown>>(schema: S, input: unknown) => {
  const decoded = Schema.decodeUnknownSync(schema)(input)
  assert.deepStrictEqual(Schema.encodeSync(schema)(decoded), input)
}

const rejects = <S extends Schema.Codec<unknown, unknown>>(schema: S, input: unknown) =>
  assert.isTrue(Result.isFailure(Schema.decodeUnknownResult(schema)(input)))

describe("ErrorBodies", () => {
  it('404 is {"detail": "not found"}', () => {
    roundTrip(NotFoundBody, { detail: "not found" })
    rejects(NotFoundBody, { detail: "Not Found" })
  })

  it('401 without a key is {"detail": {"error": "missing_key"}}; with an invalid key "invalid_key"', () => {
    roundTrip(MissingKeyBody, { detail: { error: "missing_key" } })
    roundTrip(InvalidKeyBody, { detail: { error: "invalid_key" } })
    roundTrip(UnauthorizedBody, { detail: { error: "invalid_key" } })
    rejects(MissingKeyBody, { detail: { error: "invalid_key" } })
    rejects(UnauthorizedBody, { detail: "missing_key" })
  })

  it("403 names the required tier and the caller's tier", () => {
    roundTrip(InsufficientTierBody, {
      detail: { error: "insufficient_tier", required_tier: "enterprise", tier: "pro" }
    })
    roundTrip(InsufficientTierBody, {
      detail: { error: "insufficient_tier", required_tier: "pro", tier: "anonymous" }
    })
    rejects(InsufficientTierBody, {
      detail: { error: "insufficient_tier", required_tier: "platinum", tier: "pro" }
    })
  })

  it("429 carries retry_after in whole seconds", () => {
    roundTrip(RateLimitedBody, { detail: { error: "rate_limited", retry_after: 17 } })
    rejects(RateLimitedBody, { detail: { error: "rate_limited", retry_after: 1.5 } })
    rejects(RateLimitedBody, { detail: { error: "rate_limited" } })
  })

  it("422 is FastAPI-style: detail is a list of {type, loc, msg, input}", () => {
    roundTrip(ValidationErrorBody, {
      detail: [
        {
          type: "less_than_equal",
          loc: ["query", "limit"],
          msg: "Input should be less than or equal to 200",
          input: "500",
          ctx: { le: 200 }
        },
        { type: "missing", loc: ["query", "entity"], msg: "Field required", input: null },
        { type: "uuid_parsing", loc: ["path", "rule_id"], msg: "Input should be a valid UUID", input: "abc" },
        {
          type: "int_parsing",
          loc: ["body", "channels", 0],
          msg: "Input should be a valid integer",
          input: { a: 1 }
        }
      ]
    })
    rejects(ValidationErrorBody, {
      detail: [{ type: "missing", loc: "query.limit", msg: "Field required", input: null }]
    })
    rejects(ValidationErrorBody, {
      detail: [{ type: "missing", loc: ["query", "limit"], msg: "Field required" }]
    })
  })
})
