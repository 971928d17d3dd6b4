/**
 * The coverage request's rules as pure functions and schemas
 * (model/ContactRequest.ts): which addresses are taken, which names and
 * messages, and when two requests are the same while one is open.
 */
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import * as fc from "fast-check"
import {
  ContactEmail,
  ContactEntityName,
  ContactMessage,
  ContactRequestCreate,
  contactKeysOf,
  emailProblem,
  hasVisibleCharacter
} from "../../src/model/ContactRequest.ts"

const accepts = (schema: Schema.Top, value: unknown) => Schema.is(schema)(value)

describe("coverage requests: the fields", () => {
  it("an e-mail address is local@domain: the usual addresses are taken, and so is every address fast-check generates within 254 characters", () => {
    for (const ok of [
      "ana@example.com",
      "first.last+tag@sub.example.co.uk",
      "x_y-z@a-b.io",
      "o'brien@example.ie",
      "n@xn--p1ai.xn--p1ai"
    ])
      assert.isUndefined(emailProblem(ok), ok)
    fc.assert(
      fc.property(
        fc.emailAddress().filter((e) => e.length <= 254),
        (email) => accepts(ContactEmail, email)
      ),
      { numRuns: 500 }
    )
  })

  it("an address without exactly one @, with an empty, over-long or badly dotted local part, or a domain without a dot or with a bad label is refused, saying which", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["plain", "exactly one @-sign"],
      ["a@b@example.com", "exactly one @-sign"],
      ["@example.com", "something before the @-sign"],
      [`${"l".repeat(65)}@example.com`, "longer than 64"],
      ["a..b@example.com", "not allowed, or a misplaced dot"],
      ["a b@example.com", "not allowed"],
      ["ana@localhost", "must have a dot"],
      ["ana@-x.com", "not a valid domain name"],
      ["ana@example.c0m", "not a valid domain name"],
      ["ana@example..com", "not a valid domain name"]
    ]
    for (const [email, why] of cases) {
      assert.include(emailProblem(email) ?? "", why, email)
      assert.isFalse(accepts(ContactEmail, email), email)
    }
    assert.isFalse(accepts(ContactEmail, `a@${"d".repeat(250)}.com`), "over 254 characters")
  })

  it("a name is 1 to 200 characters, not blank, without control characters or direction overrides", () => {
    assert.isTrue(accepts(ContactEntityName, "Aave V4"))
    assert.isTrue(accepts(ContactEntityName, "名前 🦄"))
    assert.isTrue(accepts(ContactEntityName, "n".repeat(200)))
    for (const bad of ["", " \t", "n".repeat(201), "a\nb", "a\u0000b", "a\u009bb", "a\u2066b"])
      assert.isFalse(accepts(ContactEntityName, bad), JSON.stringify(bad))
  })

  it("a message is at most 2000 characters; line breaks and tabs are allowed, other control characters are not", () => {
    assert.isTrue(accepts(ContactMessage, "one\ntwo\r\n\tthree"))
    assert.isTrue(accepts(ContactMessage, "m".repeat(2000)))
    for (const bad of ["m".repeat(2001), "bell\u0007", "\u001b[0m", "\u202e"])
      assert.isFalse(accepts(ContactMessage, bad), JSON.stringify(bad))
  })

  it("invisible coverage names: a name without a visible character, or holding a zero-width, direction, line-separator or other control or format character, is refused; a message refuses the same but for line breaks, tabs and joiners; an address is ASCII", () => {
    const invisibleOnly = [
      "\u200B",
      "\u200B\u200C\u200D",
      "\u2060",
      "\uFEFF",
      " \u200B ",
      "\u3164",
      "\u115F",
      "\u2800",
      "\u0301",
      "\uFE0F",
      "\u00AD"
    ]
    const hiding = [
      ...["\u200B", "\u200C", "\u200D", "\u2060", "\uFEFF"],
      ...["\u061C", "\u200E", "\u200F", "\u202A", "\u202B", "\u202C", "\u202D", "\u202E"],
      ...["\u2066", "\u2067", "\u2068", "\u2069", "\u2028", "\u2029"],
      ...["\u00AD", "\u0085", "\u007F", "\u{E0041}", "\uD800"]
    ]
    for (const name of invisibleOnly) assert.isFalse(accepts(ContactEntityName, name), JSON.stringify(name))
    for (const c of hiding) {
      assert.isFalse(accepts(ContactEntityName, `Aave${c}V4`), JSON.stringify(c))
      assert.isFalse(accepts(ContactEntityName, `${c}Aave V4`), JSON.stringify(c))
      assert.isFalse(accepts(ContactEmail, `ana${c}@example.com`), JSON.stringify(c))
      assert.isFalse(accepts(ContactEmail, `ana@exam${c}ple.com`), JSON.stringify(c))
      const joiner = c === "\u200C" || c === "\u200D"
      assert.strictEqual(accepts(ContactMessage, `a note${c}here`), joiner, JSON.stringify(c))
    }
    for (const ok of ["Cafe\u0301", "العربية", "名前 🦄", "Ｌｉｄｏ", "x"])
      assert.isTrue(accepts(ContactEntityName, ok), JSON.stringify(ok))
    assert.isTrue(accepts(ContactMessage, "👩\u200D💻 writes: می\u200Cخواهم"))
    assert.isFalse(hasVisibleCharacter("\u200D \n\u200C\t"))
    assert.isTrue(hasVisibleCharacter("\u200Da"))
    const issue = Schema.decodeUnknownExit(ContactEntityName)("\u200B")
    assert.include(String(issue), "visible character")
  })

  it("the body needs protocol_name and contact_email; request_type, message and entity_type are optional", () => {
    assert.isTrue(accepts(ContactRequestCreate, { protocol_name: "X", contact_email: "x@example.com" }))
    assert.isFalse(accepts(ContactRequestCreate, { protocol_name: "X" }))
    assert.isFalse(accepts(ContactRequestCreate, { contact_email: "x@example.com" }))
    assert.isTrue(
      accepts(ContactRequestCreate, {
        protocol_name: "X",
        contact_email: "x@example.com",
        request_type: "correction",
        message: null,
        entity_type: "bridge"
      })
    )
  })
})

describe("coverage requests: one open request per entity and address", () => {
  it("two requests are the same when their names match ignoring case and whitespace (compatibility-normalised) and their addresses ignoring case", () => {
    const key = (protocol_name: string, contact_email: string) =>
      contactKeysOf({ protocol_name, contact_email })
    assert.deepStrictEqual(key(" Aave  V4 ", "Ana@Example.COM"), key("aavev4", "ana@example.com"))
    assert.deepStrictEqual(key("ＡＡＶＥ v4", "ana@example.com"), key("Aave V4", "ana@example.com"))
    assert.notDeepEqual(key("Aave V4", "ana@example.com"), key("Aave V3", "ana@example.com"))
    assert.notDeepEqual(key("Aave V4", "ana@example.com"), key("Aave V4", "bob@example.com"))
    assert.notDeepEqual(key("aave-v4", "ana@example.com"), key("aave v4", "ana@example.com"))
  })
})
