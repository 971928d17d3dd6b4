/**
 * The Webhooks tab's create form read into the API's create body: what a
 * browser posts becomes exactly what POST /api/v1/alert-rules would take,
 * and every field that is wrong is named at once, with the item at fault.
 */
import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import { decodeRuleForm, EmptyRuleForm, readRuleForm, slugsOf } from "../../src/explorer/RuleForm.ts"

describe("the create-rule form", () => {
  it("reads a posted form into the API's create body: no name is none, empty lists watch all", () => {
    const form = new URLSearchParams(
      "webhook_url=+https%3A%2F%2Fhooks.example.com%2Fr+&name=&slugs=aave-v3%2C+lido%0Acompound&events=rating.new&entity_types=protocol&entity_types=chain&other=x"
    )
    const decoded = decodeRuleForm(readRuleForm(form))
    assert.isTrue(Result.isSuccess(decoded))
    assert.deepStrictEqual(Result.getOrThrow(decoded), {
      entity_types: ["protocol", "chain"],
      slugs: ["aave-v3", "lido", "compound"],
      events: ["rating.new"],
      channels: { webhook_url: "https://hooks.example.com/r" }
    })
    assert.deepStrictEqual(slugsOf(" , \n"), [])
  })

  it("names every wrong field at once, each with the item at fault", () => {
    const decoded = decodeRuleForm({
      name: "n".repeat(201),
      webhook_url: "ftp://hooks.example.com",
      entity_types: ["protocol", "planet"],
      slugs: "lendwell Not_A_Slug",
      events: ["rating.exploded"]
    })
    assert.isTrue(Result.isFailure(decoded))
    const errors = Result.isFailure(decoded) ? decoded.failure : {}
    assert.deepStrictEqual(Object.keys(errors).sort(), [
      "entity_types",
      "events",
      "name",
      "slugs",
      "webhook_url"
    ])
    assert.include(errors.webhook_url, "an absolute http or https URL")
    assert.include(errors.entity_types, '"planet"')
    assert.include(errors.slugs, '"Not_A_Slug"')
    assert.include(errors.events, '"rating.exploded"')
    assert.include(errors.name, "at most 200")
  })

  it("asks for the URL before anything else, and keeps a pasted novel out of the echo", () => {
    assert.deepStrictEqual(
      decodeRuleForm(EmptyRuleForm),
      Result.fail({ webhook_url: "A webhook URL is required." })
    )
    const read = readRuleForm(new URLSearchParams({ webhook_url: "x".repeat(100_000) }))
    assert.isAtMost(read.webhook_url.length, 8192)
  })
})
