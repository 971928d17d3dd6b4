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

/**
 * The first syntax error of a text as RFC 8259 defines JSON, or undefined when
 * there is none. Iterative, so deeply nested input cannot overflow the stack.
 */
export const findJsonSyntaxError = (text: string): JsonSyntaxError | undefined => {
  const stack: Array<"array" | "object"> = []
  let i = 0
  let mode: Mode = "value"
  let afterComma = false
  const fail = (reason: string): JsonSyntaxError => ({ offset: i, reason })

  const string = (): JsonSyntaxError | undefined => {
    i++
    while (i < text.length) {
      const c = text[i]!
      if (c === '"') {
        i++
        return undefined
      }
      if (c === "\\") {
        const e = text[i + 1]
        if (e === "u") {
          if (!HEX.test(text.slice(i + 2, i + 6))) return fail("a \\u escape needs four hex digits")
          i += 6
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2
        else {
          i++
          return fail(`invalid escape ${e === undefined ? "at the end of the file" : `\\${e}`} in a string`)
        }
      } else if (c.charCodeAt(0) < 0x20) {
        return fail("a control character (such as a raw line break) inside a string must be escaped")
      } else i++
    }
    return fail("a string is not closed before the end of the file")
  }

  const number = (): JsonSyntaxError | undefined => {
    if (text[i] === "-") i++
    if (text[i] === "0") i++
    else if (isDigit(text[i])) while (isDigit(text[i])) i++
    else return fail(`expected a digit, found ${shown(text, i)}`)
    if (text[i] === ".") {
      i++
      if (!isDigit(text[i])) return fail(`expected a digit after the decimal point, found ${shown(text, i)}`)
      while (isDigit(text[i])) i++
    }
    if (text[i] === "e" || text[i] === "E") {
      i++
      if (text[i] === "+" || text[i] === "-") i++
      if (!isDigit(text[i])) return fail(`expected a digit in the exponent, found ${shown(text, i)}`)
      while (isDigit(text[i])) i++
    }
    return undefined
  }

  for (;;) {
    while (isWs(text[i])) i++
    const c = text[i]
    if (mode === "value" || mode === "value-or-close") {
      if (c === "]" && mode === "value-or-close") {
        i++
        stack.pop()
        mode = "after"
        continue
      }
      if (c === "]" && afterComma) return fail("a trailing comma before ']' is not allowed in JSON")
      afterComma = false
      if (c === "{") {
        stack.push("object")
        i++
        mode = "key-or-close"
        continue
      }
      if (c === "[") {
        stack.push("array")
        i++
        mode = "value-or-close"
        continue
      }
      let error: JsonSyntaxError | undefined
      if (c === '"') error = string()
      else if (c === "-" || isDigit(c)) error = number()
      else {
        const word = ["true", "false", "null"].find((w) => text.startsWith(w, i))
        if (word === undefined) return fail(`expected a value, found ${shown(text, i)}`)
        i += word.length
      }
      if (error !== undefined) return error
      mode = "after"
      continue
    }
    if (mode === "key" || mode === "key-or-close") {
      if (c === "}" && mode === "key-or-close") {
        i++
        stack.pop()
        mode = "after"
        continue
      }
      if (c === "}") return fail("a trailing comma before '}' is not allowed in JSON")
      if (c !== '"') return fail(`expected a property name in double quotes, found ${shown(text, i)}`)
      afterComma = false
      const error = string()
      if (error !== undefined) return error
      while (isWs(text[i])) i++
      if (text[i] !== ":") return fail(`expected ':' after the property name, found ${shown(text, i)}`)
      i++
      mode = "value"
      continue
    }
    // mode === "after": a value just ended
    const top = stack[stack.length - 1]
    if (top === undefined) {
      return i < text.length
        ? fail(`unexpected ${shown(text, i)} after the end of the JSON value`)
        : undefined
    }
    if (c === ",") {
      i++
      afterComma = true
      mode = top === "array" ? "value" : "key"
      continue
    }
    if ((top === "array" && c === "]") || (top === "object" && c === "}")) {
      i++
      stack.pop()
      continue
    }
    return fail(
      top === "array"
        ? `expected ',' or ']' after an array element, found ${shown(text, i)}`
        : `expected ',' or '}' after a property value, found ${shown(text, i)}`
    )
  }
}
