import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import { formatImportIssue } from "../../src/import/ImportIssue.ts"
import { findJsonSyntaxError, lineAndColumn, parseJsonText } from "../../src/import/ImportJsonText.ts"

const failure = (text: string) => {
  const r = parseJsonText("data/entities.json", text)
  assert.isTrue(Result.isFailure(r), `expected ${JSON.stringify(text)} to be refused`)
  return Result.isFailure(r) ? r.failure : undefined!
}

describe("parseJsonText", () => {
  it("a number beyond a double (1e400 reads as Infinity) is refused at its JSON path, saying JSON numbers must be finite", () => {
    const text = `{"format":"ratings-import/v1","entities":[{"record":{"score":1e400,"tags":[-1E+999]}}],"x":${"9".repeat(400)}}`
    assert.deepStrictEqual(failure(text), {
      source: "data/entities.json",
      path: "$.entities[0].record.score",
      message:
        "a number beyond the range of a double (about ±1.8e308): JSON numbers must be finite (and 2 more in this file)"
    })
    assert.deepStrictEqual(failure("[1e400]").path, "$[0]")
    const fine = parseJsonText(
      "a.json",
      '{"id":"00000000-4e12-4000-8000-0000000e1234","n":1e308,"s":"1e400"}'
    )
    assert.isTrue(Result.isSuccess(fine))
  })

  it("bad JSON reports the file, the line and the column of the first offending character", () => {
    const text =
      '{\n  "format": "ratings-import/v1",\n  "entities": [\n    { "slug": "a" }\n    { "slug": "b" }\n  ]\n}'
    assert.deepStrictEqual(failure(text), {
      source: "data/entities.json",
      path: "$",
      line: 5,
      column: 5,
      message: `invalid JSON at line 5, column 5: expected ',' or ']' after an array element, found "{"`
    })
    assert.strictEqual(
      formatImportIssue(failure(text)),
      `data/entities.json: invalid JSON at line 5, column 5: expected ',' or ']' after an array element, found "{"`
    )
  })

  it("reports a position even where JSON.parse gives none (trailing commas, a stray token)", () => {
    const trailing = failure('{\r\n  "a": [1, 2,]\r\n}')
    assert.deepStrictEqual([trailing.line, trailing.column], [2, 14])
    assert.match(trailing.message, /a trailing comma before '\]' is not allowed in JSON/)
    const stray = failure('{"a": 1,\n  "b": }')
    assert.deepStrictEqual([stray.line, stray.column], [2, 8])
    assert.match(stray.message, /expected a value, found "}"/)
  })

  it("names the usual mistakes: unquoted keys, single quotes, unclosed strings, an empty file", () => {
    assert.match(
      failure("{ format: 1 }").message,
      /line 1, column 3: expected a property name in double quotes/
    )
    assert.match(failure("{ 'a': 1 }").message, /expected a property name in double quotes, found "'"/)
    assert.match(failure('{"a": "open\n}').message, /line 1, column 12: a control character/)
    assert.match(failure('{"a": "open').message, /a string is not closed before the end of the file/)
    assert.match(failure("").message, /line 1, column 1: expected a value, found the end of the file/)
    assert.match(failure("{} {}").message, /unexpected "{" after the end of the JSON value/)
    assert.match(failure("[01]").message, /expected ',' or '\]' after an array element, found "1"/)
  })

  it("accepts a leading byte order mark, which editors add", () => {
    const r = parseJsonText("a.json", '\uFEFF{"format": "ratings-import/v1"}')
    assert.deepStrictEqual(r, Result.succeed({ name: "a.json", content: { format: "ratings-import/v1" } }))
  })

  it("the scanner agrees with JSON.parse on every text: no error exactly when JSON.parse accepts it", () => {
    const accepts = (t: string) => {
      try {
        JSON.parse(t)
        return true
      } catch {
        return false
      }
    }
    const texts = fc.oneof(
      fc.json(),
      fc.jsonValue().map((v) => JSON.stringify(v, null, 2)),
      fc.json().map((t) => t.slice(0, Math.max(0, t.length - 1))),
      fc
        .tuple(fc.json(), fc.nat(), fc.constantFrom(",", "]", "}", "'", ":", " x", "\n"))
        .map(([t, i, s]) => t.slice(0, i % (t.length + 1)) + s + t.slice(i % (t.length + 1))),
      fc.string()
    )
    fc.assert(
      fc.property(texts, (t) => {
        const error = findJsonSyntaxError(t)
        assert.strictEqual(error === undefined, accepts(t), JSON.stringify(t))
        if (error !== undefined) assert.isAtMost(error.offset, t.length)
      }),
      { numRuns: 2000 }
    )
  })

  it("lines and columns are 1-based and a CRLF is one line break", () => {
    assert.deepStrictEqual(lineAndColumn("ab\r\ncd", 5), { line: 2, column: 2 })
    assert.deepStrictEqual(lineAndColumn("", 0), { line: 1, column: 1 })
  })
})
