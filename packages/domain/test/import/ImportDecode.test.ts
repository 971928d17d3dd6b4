import { assert, describe, it } from "@effect/vitest"
import { decodeSources } from "../../src/import/ImportDecode.ts"
import { formatImportIssue, type ImportIssue, jsonPath } from "../../src/import/ImportIssue.ts"
import { entity, file, id, type Json, protocolAnswers, scorecard } from "./ImportFixtures.ts"

const issuesOf = (content: unknown) => decodeSources([{ name: "in.json", content }]).issues

const at = (issues: ReadonlyArray<ImportIssue>, path: string): string => {
  const hit = issues.find((i) => i.path === path)
  assert.isDefined(hit, `no issue at ${path}; got ${JSON.stringify(issues, null, 1)}`)
  return hit!.message
}

const withRecord = (over: Json) => file({ entities: [entity("protocol", "lend", 1, over)] })

describe("decodeSources: each schema violation class reports its JSON path and reason", () => {
  it("a missing required key", () => {
    const e = entity("protocol", "lend", 1)
    delete (e.record as Json).is_private
    assert.strictEqual(
      at(issuesOf(file({ entities: [e] })), "$.entities[0].record.is_private"),
      'missing required key "is_private"'
    )
  })

  it("an unknown key, at any depth (a misspelt optional key would otherwise be dropped)", () => {
    const issues = issuesOf(
      file({ entites: [], entities: [{ ...entity("protocol", "lend", 1), domain_weight: {} }] })
    )
    assert.strictEqual(
      at(issues, "$.entites"),
      'unknown key "entites": the import format has no such field here'
    )
    assert.strictEqual(
      at(issues, "$.entities[0].domain_weight"),
      'unknown key "domain_weight": the import format has no such field here'
    )
  })

  it("a value of the wrong type", () => {
    assert.strictEqual(
      at(issuesOf(withRecord({ is_active: "yes" })), "$.entities[0].record.is_active"),
      'Expected boolean, got "yes"'
    )
    assert.strictEqual(at(issuesOf(file({ entities: {} })), "$.entities"), "Expected array, got {}")
    assert.strictEqual(
      at(issuesOf([]), "$"),
      'an import file is a JSON object with "format": "ratings-import/v1"'
    )
  })

  it("a value that fails a check: slug pattern, UUID, date-time, bounds", () => {
    const issues = issuesOf(
      withRecord({ slug: "Lend Protocol", id: "42", updated_at: "2026-02-30T00:00:00Z" })
    )
    assert.match(
      at(issues, "$.entities[0].record.slug"),
      /^Expected a kebab-case slug .*, got "Lend Protocol"$/
    )
    assert.strictEqual(at(issues, "$.entities[0].record.id"), 'Expected a UUID, got "42"')
    assert.match(
      at(issues, "$.entities[0].record.updated_at"),
      /Expected an ISO 8601 date-time .*, got "2026-02-30T00:00:00Z"/
    )
    const card = scorecard(10, "lend", 0, [{ ...protocolAnswers(100)[0], score: 5 }])
    const cardIssues = issuesOf(file({ scorecards: [card] }))
    assert.strictEqual(
      at(cardIssues, "$.scorecards[0].scorecard_version"),
      "Expected a value greater than or equal to 1, got 0"
    )
    assert.strictEqual(
      at(cardIssues, "$.scorecards[0].answers[0].score"),
      "score (5) must not exceed max_score (4)"
    )
  })

  it("an unknown enumeration value or entity type", () => {
    assert.strictEqual(
      at(issuesOf(withRecord({ status: "live" })), "$.entities[0].record.status"),
      'Expected "draft" | "scoring" | "approved" | "published", got "live"'
    )
    assert.match(
      at(issuesOf(file({ entities: [{ entity_type: "widget", record: {} }] })), "$.entities[0]"),
      /^an entity is an object with entity_type \(one of protocol, chain, token, oracle, vault, organisation, bridge\)/
    )
    assert.strictEqual(
      at(issuesOf({ format: "ratings-import/v2" }), "$.format"),
      'Expected "ratings-import/v1", got "ratings-import/v2"'
    )
  })

  it("a rule of a record: a note beside its provider key, more than one protocol category, a threshold above the signer count", () => {
    const issues = issuesOf(
      file({
        entities: [
          entity("protocol", "lend", 1, {
            external_ids: { coingecko: "x", coingecko_note: "none" },
            categories: ["lending", "dex"]
          }),
          entity("bridge", "hop", 2, { signer_count: 3, signing_threshold: 5 })
        ]
      })
    )
    assert.match(
      at(issues, "$.entities[0].record.external_ids.coingecko_note"),
      /holds both "coingecko" and "coingecko_note"/
    )
    assert.match(at(issues, "$.entities[0].record.categories"), /at most one category/)
    assert.strictEqual(
      at(issues, "$.entities[1].record.signing_threshold"),
      "signing_threshold (5) must not exceed signer_count (3)"
    )
  })

  it("a NUL character (U+0000) in any string or key is an issue at its path: nothing could store it", () => {
    const issues = issuesOf(
      withRecord({ name: "Lend\u0000", urls: { "home\u0000page": "https://lend.example" } })
    )
    assert.strictEqual(at(issues, "$.entities[0].record.name"), "must not contain a NUL character (U+0000)")
    assert.strictEqual(
      at(issues, '$.entities[0].record.urls["home\\u0000page"]'),
      "must not contain a NUL character (U+0000)"
    )
    assert.deepStrictEqual(
      issuesOf(withRecord({ name: "Lend" })),
      [],
      "the same file without the NUL is valid"
    )
  })

  it("valid items of a file that fails still take part in the import; broken ones are remembered", () => {
    const decoded = decodeSources([
      {
        name: "in.json",
        content: file({
          entities: [entity("protocol", "lend", 1), entity("protocol", "bad", 2, { id: "x" })]
        })
      }
    ])
    assert.deepStrictEqual(
      decoded.content.entities.map((e) => [e.path, e.value.record.id]),
      [["$.entities[0]", id(1)]]
    )
    assert.deepStrictEqual([...decoded.content.broken.entities], ["protocol:bad"])
  })
})

describe("jsonPath", () => {
  it("writes identifiers with dots, indexes in brackets and other keys quoted", () => {
    assert.strictEqual(
      jsonPath(["entities", 3, "record", "urls", "home page"]),
      '$.entities[3].record.urls["home page"]'
    )
    assert.strictEqual(jsonPath([]), "$")
  })

  it("an issue prints as one line: file, JSON path, reason", () => {
    const [issue] = issuesOf(withRecord({ is_active: "yes" }))
    assert.strictEqual(
      formatImportIssue(issue!),
      'in.json: $.entities[0].record.is_active: Expected boolean, got "yes"'
    )
  })
})
