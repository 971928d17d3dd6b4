import { execFileSync } from "node:child_process"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { formatJson } from "../src/DemoJson.ts"

const repoRoot = join(import.meta.dirname, "..", "..", "..")

/** What Biome makes of a JSON text, through its CLI (the formatter the repository checks with). */
const biomeFormat = (text: string): string =>
  execFileSync(join(repoRoot, "node_modules", ".bin", "biome"), ["format", "--stdin-file-path=demo.json"], {
    cwd: repoRoot,
    input: text,
    encoding: "utf8"
  })

describe("DemoJson", () => {
  it("formatted text parses back to the same value", () => {
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: "small" },
        fc.constantFrom(null, true, false),
        fc.integer(),
        fc.string(),
        fc.array(tie("value"), { maxLength: 4 }),
        fc.dictionary(fc.string(), tie("value"), { maxKeys: 4 })
      )
    })).value
    fc.assert(fc.property(json, (v) => assert.deepStrictEqual(JSON.parse(formatJson(v as object)), v)))
  })

  it("lays objects out one key per line and scalar arrays on one line only when the line fits 110 columns", () => {
    // `  "fits": ["` + 95 characters + `"],` is exactly 110 columns; one more character breaks the array.
    const fits = "x".repeat(95)
    const long = "y".repeat(96)
    const value = { a: [], b: {}, fits: [fits], long: [long], nested: [{ k: 1 }, [1, 2]] }
    assert.strictEqual(
      formatJson(value),
      [
        "{",
        '  "a": [],',
        '  "b": {},',
        `  "fits": ["${fits}"],`,
        '  "long": [',
        `    "${long}"`,
        "  ],",
        '  "nested": [',
        "    {",
        '      "k": 1',
        "    },",
        "    [1, 2]",
        "  ]",
        "}",
        ""
      ].join("\n")
    )
  })

  it("the layout is the one Biome gives, so a rebuilt demo leaves the formatter nothing to change", () => {
    const sample = {
      format: "ratings-import/v1",
      edge: ["a".repeat(95)],
      over: ["b".repeat(96)],
      last: { atEnd: ["c".repeat(93)], pastEnd: ["d".repeat(90)] },
      deep: { list: [{ score: 0, description: "none" }], tags: ["l2", "evm"], empty: [], none: null },
      numbers: [1, 2.5, -3, 1e-7]
    }
    const text = formatJson(sample)
    assert.strictEqual(biomeFormat(text), text)
  })
})
