/**
 * The input forms of `ratings incidents ingest` (a JSON array, one report
 * object, JSON Lines) and the messages of a refused input: every problem at
 * once, each located, none repeating a value of the input.
 */
import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import { type LocatedReport, readIncidentReports } from "../../src/import/IncidentReportFile.ts"

const report = (nonce: string, extra: Record<string, unknown> = {}) => ({
  nonce,
  protocol_name: "Lendwell",
  chain: null,
  exploit_class: "ORACLE_MANIPULATION",
  loss_estimate_usd: null,
  victim_addresses: [],
  source: { handle: "peckshield" },
  claimed_tier: "rumored",
  first_seen_at: "2026-08-01T10:00:00+02:00",
  ...extra
})

const accepted = (text: string): ReadonlyArray<LocatedReport> => {
  const r = readIncidentReports("in.json", text)
  if (Result.isFailure(r)) return assert.fail(r.failure.join("\n"))
  return r.success
}

const refused = (text: string): ReadonlyArray<string> => {
  const r = readIncidentReports("in.json", text)
  if (Result.isSuccess(r)) return assert.fail(`expected ${JSON.stringify(text)} to be refused`)
  return r.failure
}

const located = (reports: ReadonlyArray<LocatedReport>) =>
  reports.map((r) => [r.number, r.where, r.report.nonce])

describe("readIncidentReports", () => {
  it("a JSON array gives its reports in file order, each located by its index", () => {
    const reports = accepted(JSON.stringify([report("a"), report("b")], null, 2))
    assert.deepStrictEqual(located(reports), [
      [1, "$[0]", "a"],
      [2, "$[1]", "b"]
    ])
    assert.strictEqual(reports[0]!.report.first_seen_at, "2026-08-01T10:00:00+02:00")
  })

  it("one report object is one report, also pretty-printed and after a byte-order mark", () => {
    assert.deepStrictEqual(located(accepted(JSON.stringify(report("a")))), [[1, "$", "a"]])
    assert.deepStrictEqual(located(accepted(`\uFEFF${JSON.stringify(report("a"), null, 2)}`)), [
      [1, "$", "a"]
    ])
  })

  it("JSON Lines: one report per line, blank lines and CRLF allowed, each located by its line", () => {
    const text = `${JSON.stringify(report("a"))}\r\n\r\n${JSON.stringify(report("b"))}\r\n`
    assert.deepStrictEqual(located(accepted(text)), [
      [1, "line 1", "a"],
      [2, "line 3", "b"]
    ])
  })

  it("an empty array is no reports, not an error", () => {
    assert.deepStrictEqual(accepted("[]"), [])
  })

  it("bad JSON in a document is reported at its line and column, not read as JSON Lines", () => {
    const text = `{\n  "nonce": "a",\n  "chain": [,]\n}`
    assert.deepStrictEqual(refused(text), [
      `in.json: invalid JSON at line 3, column 13: expected a value, found ","`
    ])
  })

  it("bad JSON in JSON Lines is reported for every bad line, with the file's line numbers", () => {
    const text = `${JSON.stringify(report("a"))}\n{"nonce": }\n${JSON.stringify(report("c"))}\n{"nonce": "d"`
    assert.deepStrictEqual(refused(text), [
      `in.json: invalid JSON at line 2, column 11: expected a value, found "}"`,
      `in.json: invalid JSON at line 4, column 14: expected ',' or '}' after a property value, found the end of the line`
    ])
  })

  it("every invalid report is reported with its location and the schema's reason; valid ones are not", () => {
    const issues = refused(
      JSON.stringify([
        report("a"),
        report("b", { first_seen_at: "2026-08-01T10:00:00" }),
        report("c", { claimed_tier: "certain", loss_estimate_usd: -5 })
      ])
    )
    assert.deepStrictEqual(issues, [
      "in.json: report 2 ($[1].first_seen_at): expected an ISO 8601 date-time with seconds and a zone, such as 2026-08-01T00:00:00+00:00 or ...Z",
      "in.json: report 3 ($[2].loss_estimate_usd): Expected a value greater than or equal to 0",
      'in.json: report 3 ($[2].claimed_tier): Expected "rumored" | "corroborated" | "confirmed"'
    ])
  })

  it("in JSON Lines an invalid report is located by its line and its path", () => {
    const text = `${JSON.stringify(report("a"))}\n${JSON.stringify(report("b", { source: {} }))}`
    assert.deepStrictEqual(refused(text), [
      `in.json: report 2 (line 2, $.source.handle): missing required key "handle"`
    ])
  })

  it("a number beyond a double (1e400 reads as Infinity) is refused at its path as such, not as a wrong type, in every input form", () => {
    const bad = JSON.stringify(report("a", { loss_estimate_usd: 0, chain: 0 }))
      .replace('"loss_estimate_usd":0', '"loss_estimate_usd":1e400')
      .replace('"chain":0', '"chain":-1E+999')
    const message = "a number beyond the range of a double (about ±1.8e308): JSON numbers must be finite"
    assert.deepStrictEqual(refused(bad), [
      `in.json: report 1 ($.chain): ${message}`,
      `in.json: report 1 ($.loss_estimate_usd): ${message}`
    ])
    assert.deepStrictEqual(refused(`[${JSON.stringify(report("a"))},${bad}]`), [
      `in.json: report 2 ($[1].chain): ${message}`,
      `in.json: report 2 ($[1].loss_estimate_usd): ${message}`
    ])
    assert.deepStrictEqual(refused(`${JSON.stringify(report("a"))}\n${bad}\n`), [
      `in.json: report 2 (line 2, $.chain): ${message}`,
      `in.json: report 2 (line 2, $.loss_estimate_usd): ${message}`
    ])
    assert.deepStrictEqual(refused("[1e400]"), [`in.json: report 1 ($[0]): ${message}`])
  })

  it("an unknown key is refused, so a misspelt optional field is not dropped without a word", () => {
    assert.deepStrictEqual(refused(JSON.stringify(report("a", { resolved: "2026-08-02T00:00:00Z" }))), [
      `in.json: report 1 ($.resolved): unknown key "resolved": an incident report has no such field`
    ])
  })

  it("an empty input and a top-level value that is not a report are refused", () => {
    assert.deepStrictEqual(refused(" \n"), ["in.json: the input is empty: expected incident reports"])
    assert.match(
      refused("42")[0]!,
      /expected a JSON array of incident reports, one report object, or JSON Lines/
    )
    assert.deepStrictEqual(refused("[1]"), ["in.json: report 1 ($[0]): Expected object"])
  })

  it("messages never repeat a nonce or a victim address of the input", () => {
    const issues = refused(
      JSON.stringify([report("a", { nonce: 86420135797531, victim_addresses: "0xabcdef0123456789abcdef" })])
    ).join("\n")
    assert.include(issues, "$[0].nonce")
    assert.include(issues, "$[0].victim_addresses")
    assert.notInclude(issues, "86420135797531")
    assert.notInclude(issues, "0xabcdef0123456789abcdef")
  })
})
