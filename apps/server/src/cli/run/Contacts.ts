/**
 * What `ratings contacts list|close` do (the commands and what they promise:
 * ContactsCommand.ts). Stored text is printed so that it cannot disguise
 * itself or the lines around it, whatever it holds (`printable`,
 * `printableJson`).
 */
import type { ContactRequestRecord } from "@ratings/domain/model/ContactRequest"
import { isoTimestamp } from "@ratings/domain/model/Primitives"
import { ContactRequestRepository } from "@ratings/domain/ports/ContactRequestRepository"
import { Console, Effect } from "effect"
import { AppLayer } from "../../AppLayer.ts"
import { CommandFailed } from "../CommandFailed.ts"

/** The widest a message is shown in the table. */
export const MessageWidth = 80

/** Characters a terminal would act on or not show: controls, format characters, lone surrogates, separators. */
const Unsafe = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu

const hex = (n: number): string => n.toString(16).toUpperCase().padStart(4, "0")

/**
 * `text` with every unsafe character shown as `\u{XXXX}`, so it is one line
 * that shows all it holds (rows stored before the API refused such characters
 * included).
 */
export const printable = (text: string): string =>
  text.replace(Unsafe, (c) => `\\u{${hex(c.codePointAt(0)!)}}`).trim()

/** Unsafe characters but the line feeds of the indentation (inside a string JSON.stringify escapes them itself). */
const UnsafeInJson = /(?!\n)[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu

/**
 * The JSON of `value` with every unsafe character escaped as `\uXXXX`
 * (JSON.stringify leaves most as they are), which parses back to the stored text.
 */
export const printableJson = (value: unknown): string =>
  JSON.stringify(value, null, 2).replace(UnsafeInJson, (c) =>
    // One \uXXXX per UTF-16 unit: a character past U+FFFF is its surrogate pair.
    c
      .split("")
      .map((unit) => `\\u${hex(unit.charCodeAt(0))}`)
      .join("")
  )

/** The first `width` characters of `text` (whole code points), the last replaced by … when it is longer. */
const cut = (text: string, width: number): string => {
  const chars = [...text]
  return chars.length <= width ? text : `${chars.slice(0, width - 1).join("")}…`
}

/** A message in the table: line breaks and tabs as spaces, cut, then shown safely. */
const messageCell = (message: string): string =>
  printable(cut(message.replace(/[\t\n\r]+/gu, " ").trim(), MessageWidth))

const Header = ["id", "received", "status", "type", "entity", "name", "email", "message"] as const

const cellsOf = (r: ContactRequestRecord): ReadonlyArray<string> => [
  r.id,
  r.created_at,
  r.status,
  r.request_type,
  r.entity_type ?? "-",
  printable(r.protocol_name),
  printable(r.contact_email),
  r.message === null ? "-" : messageCell(r.message)
]

/** The requests as a table: a header, then one line each, columns padded to their widest cell (the last not). */
export const formatContactTable = (records: ReadonlyArray<ContactRequestRecord>): string => {
  const rows = [Header, ...records.map(cellsOf)]
  const widths = Header.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)))
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!)))
        .join("  ")
        .trimEnd()
    )
    .join("\n")
}

/** The request closed, and the reference id it was named by when that is not its own id. */
const requestNamed = (given: string, requestId: string): string =>
  given.toLowerCase() === requestId ? requestId : `${requestId} (reference ${given})`

const fail = (message: string) =>
  Effect.andThen(Console.error(message), Effect.fail(new CommandFailed({ message: "failed" })))

// The open requests, oldest first by default; the message on one line, cut to MessageWidth.
export const list = Effect.fnUntraced(function* (input: {
  readonly status: "open" | "closed" | "all"
  readonly json: boolean
  readonly limit: number
}) {
  const { status, json, limit } = input
  if (limit < 1) return yield* fail(`--limit must be 1 or more, got ${limit}`)
  const page = yield* (yield* ContactRequestRepository).list(status, limit)
  if (json) yield* Console.log(printableJson(page.items))
  else if (page.items.length > 0) yield* Console.log(formatContactTable(page.items))
  const which = status === "all" ? "" : `${status} `
  if (page.total === 0) yield* Console.error(`no ${which}coverage requests`)
  else if (page.total > page.items.length)
    yield* Console.error(
      `${page.items.length} of ${page.total} ${which}coverage requests shown (the oldest); --limit to see more`
    )
}, Effect.provide(AppLayer))

// An id that names no request exits 1; a request already closed is left as it is and the
// command says since when (exit 0, so a script closing a list of ids can be run again).
export const close = Effect.fnUntraced(function* (id: string) {
  const trimmed = id.trim()
  const outcome = yield* (yield* ContactRequestRepository).close(trimmed, isoTimestamp(Date.now()))
  switch (outcome._tag) {
    case "NotFound":
      return yield* fail(
        `no coverage request with id ${JSON.stringify(trimmed)} (an id is the UUID in the first column of ratings contacts list)`
      )
    case "AlreadyClosed":
      return yield* Console.log(
        `coverage request ${requestNamed(trimmed, outcome.request_id)} was already closed (at ${outcome.closed_at}); nothing changed`
      )
    case "Closed":
      return yield* Console.log(`coverage request ${requestNamed(trimmed, outcome.request_id)} closed`)
  }
}, Effect.provide(AppLayer))
