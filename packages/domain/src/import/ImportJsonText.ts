/**
 * Parsing the text of an import file. `JSON.parse` says that a text is not
 * JSON, but not always where (V8 leaves the position out of several of its
 * messages), so on failure a small scanner walks the text again to find the
 * first offending character and says what was expected there, with the line
 * and column an editor shows.
 */
import { Result } from "effect"
import { mayHoldNonFiniteNumber, NonFiniteJsonMessage, nonFinitePaths } from "../model/JsonNumbers.ts"
import { type ImportIssue, jsonPath } from "./ImportIssue.ts"

/** One input of an import: a name for messages (the file path) and its parsed JSON content. */
export interface ImportSource {
  readonly name: string
  readonly content: unknown
}

export interface JsonSyntaxError {
  /** Offset in UTF-16 code units from the start of the text. */
  readonly offset: number
  readonly reason: string
}

const BOM = "\uFEFF"

/**
 * Parses one file's text; a syntax error names the file, the line and the
 * column. A number beyond a double (`1e400`, which JSON.parse reads as
 * Infinity) is refused here too, at its JSON path, as the first of them.
 */
export const parseJsonText = (name: string, text: string): Result.Result<ImportSource, ImportIssue> => {
  const body = text.startsWith(BOM) ? text.slice(1) : text
  try {
    const content: unknown = JSON.parse(body)
    const [first, ...more] = mayHoldNonFiniteNumber(body) ? nonFinitePaths(content) : []
    if (first === undefined) return Result.succeed({ name, content })
    const others = more.length === 0 ? "" : ` (and ${more.length} more in this file)`
    return Result.fail({ source: name, path: jsonPath(first), message: `${NonFiniteJsonMessage}${others}` })
  } catch (error) {
    const found = findJsonSyntaxError(body) ?? {
      offset: 0,
      reason: error instanceof Error ? error.message : String(error)
    }
    const { line, column } = lineAndColumn(body, found.offset)
    return Result.fail({
      source: name,
      path: "$",
      line,
      column,
      message: `invalid JSON at line ${line}, column ${column}: ${found.reason}`
    })
  }
}

/** 1-based line and column of an offset; CRLF counts as one line break. */
export const lineAndColumn = (text: string, offset: number): { line: number; column: number } => {
  let line = 1
  let lineStart = 0
  const end = Math.min(offset, text.length)
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++
      lineStart = i + 1
    }
  }
  return { line, column: end - lineStart + 1 }
}

const isWs = (c: string | undefined) => c === " " || c === "\t" || c === "\n" || c === "\r"
const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9"
const HEX = /^[0-9a-fA-F]{4}$/u

const shown = (text: string, i: number): string =>
  i >= text.length ? "the end of the file" : JSON.stringify(text[i])

type Mode = "value" | "value-or-close" | "after" | "key" | "key-or-close"

/** Where the scanner is: the text, the offset, the open containers and what comes next. */
interface Scanner {
  readonly text: string
  i: number
  readonly stack: Array<"array" | "object">
  mode: Mode
  /** The last token was a comma (a closing bracket right after it is a trailing comma). */
  afterComma: boolean
}

/** A syntax error at the scanner's current offset. */
const fail = (s: Scanner, reason: string): JsonSyntaxError => ({ offset: s.i, reason })

/** Reads a string from its opening quote to past its closing one, or the error in it. */
const scanString = (s: Scanner): JsonSyntaxError | undefined => {
  const text = s.text
  s.i++
  while (s.i < text.length) {
    const c = text[s.i]!
    if (c === '"') {
      s.i++
      return undefined
    }
    if (c === "\\") {
      const e = text[s.i + 1]
      if (e === "u") {
        if (!HEX.test(text.slice(s.i + 2, s.i + 6))) return fail(s, "a \\u escape needs four hex digits")
        s.i += 6
      } else if (e !== undefined && '"\\/bfnrt'.includes(e)) s.i += 2
      else {
        s.i++
        return fail(s, `invalid escape ${e === undefined ? "at the end of the file" : `\\${e}`} in a string`)
      }
    } else if (c.charCodeAt(0) < 0x20) {
      return fail(s, "a control character (such as a raw line break) inside a string must be escaped")
    } else s.i++
  }
  return fail(s, "a string is not closed before the end of the file")
}

/** Reads a number (sign, integer part, fraction, exponent), or the error in it. */
const scanNumber = (s: Scanner): JsonSyntaxError | undefined => {
  const text = s.text
  if (text[s.i] === "-") s.i++
  if (text[s.i] === "0") s.i++
  else if (isDigit(text[s.i])) while (isDigit(text[s.i])) s.i++
  else return fail(s, `expected a digit, found ${shown(text, s.i)}`)
  if (text[s.i] === ".") {
    s.i++
    if (!isDigit(text[s.i]))
      return fail(s, `expected a digit after the decimal point, found ${shown(text, s.i)}`)
    while (isDigit(text[s.i])) s.i++
  }
  if (text[s.i] === "e" || text[s.i] === "E") {
    s.i++
    if (text[s.i] === "+" || text[s.i] === "-") s.i++
    if (!isDigit(text[s.i])) return fail(s, `expected a digit in the exponent, found ${shown(text, s.i)}`)
    while (isDigit(text[s.i])) s.i++
  }
  return undefined
}

/**
 * A value is expected at `c` (or, in "value-or-close", the `]` of an empty
 * array): opens a container, or reads a scalar and moves to "after".
 */
const stepValue = (s: Scanner, c: string | undefined): JsonSyntaxError | undefined => {
  if (c === "]" && s.mode === "value-or-close") {
    s.i++
    s.stack.pop()
    s.mode = "after"
    return undefined
  }
  if (c === "]" && s.afterComma) return fail(s, "a trailing comma before ']' is not allowed in JSON")
  s.afterComma = false
  if (c === "{") {
    s.stack.push("object")
    s.i++
    s.mode = "key-or-close"
    return undefined
  }
  if (c === "[") {
    s.stack.push("array")
    s.i++
    s.mode = "value-or-close"
    return undefined
  }
  let error: JsonSyntaxError | undefined
  if (c === '"') error = scanString(s)
  else if (c === "-" || isDigit(c)) error = scanNumber(s)
  else {
    const word = ["true", "false", "null"].find((w) => s.text.startsWith(w, s.i))
    if (word === undefined) return fail(s, `expected a value, found ${shown(s.text, s.i)}`)
    s.i += word.length
  }
  if (error !== undefined) return error
  s.mode = "after"
  return undefined
}

/**
 * A property name is expected at `c` (or, in "key-or-close", the `}` of an
 * empty object): reads it and its colon, then expects the value.
 */
const stepKey = (s: Scanner, c: string | undefined): JsonSyntaxError | undefined => {
  if (c === "}" && s.mode === "key-or-close") {
    s.i++
    s.stack.pop()
    s.mode = "after"
    return undefined
  }
  if (c === "}") return fail(s, "a trailing comma before '}' is not allowed in JSON")
  if (c !== '"') return fail(s, `expected a property name in double quotes, found ${shown(s.text, s.i)}`)
  s.afterComma = false
  const error = scanString(s)
  if (error !== undefined) return error
  while (isWs(s.text[s.i])) s.i++
  if (s.text[s.i] !== ":") return fail(s, `expected ':' after the property name, found ${shown(s.text, s.i)}`)
  s.i++
  s.mode = "value"
  return undefined
}

/**
 * A value just ended: a comma or the closing bracket of its container follows,
 * or, at the top level, the end of the text ("end").
 */
const stepAfter = (s: Scanner, c: string | undefined): JsonSyntaxError | "end" | undefined => {
  const top = s.stack[s.stack.length - 1]
  if (top === undefined) {
    return s.i < s.text.length
      ? fail(s, `unexpected ${shown(s.text, s.i)} after the end of the JSON value`)
      : "end"
  }
  if (c === ",") {
    s.i++
    s.afterComma = true
    s.mode = top === "array" ? "value" : "key"
    return undefined
  }
  if ((top === "array" && c === "]") || (top === "object" && c === "}")) {
    s.i++
    s.stack.pop()
    return undefined
  }
  return fail(
    s,
    top === "array"
      ? `expected ',' or ']' after an array element, found ${shown(s.text, s.i)}`
      : `expected ',' or '}' after a property value, found ${shown(s.text, s.i)}`
  )
}

/**
 * The first syntax error of a text as RFC 8259 defines JSON, or undefined when
 * there is none. Iterative, so deeply nested input cannot overflow the stack.
 */
export const findJsonSyntaxError = (text: string): JsonSyntaxError | undefined => {
  const s: Scanner = { text, i: 0, stack: [], mode: "value", afterComma: false }
  for (;;) {
    while (isWs(text[s.i])) s.i++
    const c = text[s.i]
    const step =
      s.mode === "value" || s.mode === "value-or-close"
        ? stepValue(s, c)
        : s.mode === "key" || s.mode === "key-or-close"
          ? stepKey(s, c)
          : stepAfter(s, c)
    if (step === "end") return undefined
    if (step !== undefined) return step
  }
}
