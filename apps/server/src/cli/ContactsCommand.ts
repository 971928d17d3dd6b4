/**
 * `ratings contacts list|close`: the operators' queue of coverage requests
 * (POST /api/v1/contacts: "please rate X").
 *
 * `list` shows the open requests by default (`--status closed|all` for the
 * others), oldest first, as a table: id, received, status, request type,
 * entity type, name, address, message (on one line, cut to 80 characters);
 * `--json` prints them whole as a JSON array, for scripts. The addresses are
 * the operators' to answer: they are printed here, and nowhere in the
 * server's logs.
 *
 * `close <id>` closes an open request; the same entity and address may then
 * ask again. An id that names no request exits 1 saying so; a request already
 * closed is left as it is and the command says since when (exit 0, so that a
 * script closing a list of ids can be run again).
 */
import type { ContactRequestRecord } from "@ratings/domain/model/ContactRequest"
import { isoTimestamp } from "@ratings/domain/model/Primitives"
import { ContactRequestRepository } from "@ratings/domain/ports/ContactRequestRepository"
import { Console, Effect } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { AppLayer } from "../AppLayer.ts"
import { CommandFailed } from "./CommandFailed.ts"

const DefaultLimit = 500

/** The widest a message is shown in the table. */
export const MessageWidth = 80

/** Control characters (a message may hold line breaks) would break the one-line-per-request table. */
const oneLine = (text: string): string => text.replace(/[\p{Cc}\u202A-\u202E\u2066-\u2069]+/gu, " ").trim()

const cut = (text: string, width: number): string =>
  text.length <= width ? text : `${text.slice(0, width - 1)}…`

const Header = ["id", "received", "status", "type", "entity", "name", "email", "message"] as const

const cellsOf = (r: ContactRequestRecord): ReadonlyArray<string> => [
  r.id,
  r.created_at,
  r.status,
  r.request_type,
  r.entity_type ?? "-",
  oneLine(r.protocol_name),
  oneLine(r.contact_email),
  r.message === null ? "-" : cut(oneLine(r.message), MessageWidth)
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

const fail = (message: string) =>
  Effect.andThen(Console.error(message), Effect.fail(new CommandFailed({ message: "failed" })))

const list = Command.make(
  "list",
  {
    status: Flag.Literals("status", ["open", "closed", "all"] as const).pipe(
      Flag.withDescription("Which requests: open (the default), closed or all"),
      Flag.withDefault("open" as const)
    ),
    json: Flag.Boolean("json").pipe(
      Flag.withDescription("Print the requests as a JSON array (every field, the whole message)"),
      Flag.withDefault(false)
    ),
    limit: Flag.Int("limit").pipe(
      Flag.withDescription(`The oldest this many requests (default ${DefaultLimit})`),
      Flag.withDefault(DefaultLimit)
    )
  },
  Effect.fnUntraced(function* ({ status, json, limit }) {
    if (limit < 1) return yield* fail(`--limit must be 1 or more, got ${limit}`)
    const page = yield* (yield* ContactRequestRepository).list(status, limit)
    if (json) yield* Console.log(JSON.stringify(page.items, null, 2))
    else if (page.items.length > 0) yield* Console.log(formatContactTable(page.items))
    const which = status === "all" ? "" : `${status} `
    if (page.total === 0) yield* Console.error(`no ${which}coverage requests`)
    else if (page.total > page.items.length)
      yield* Console.error(
        `${page.items.length} of ${page.total} ${which}coverage requests shown (the oldest); --limit to see more`
      )
  }, Effect.provide(AppLayer))
).pipe(
  Command.withDescription(
    "List coverage requests, oldest first: id, received, status, type, entity, name, email, message"
  )
)

const close = Command.make(
  "close",
  {
    id: Argument.String("id").pipe(
      Argument.withDescription("The request's id (the first column of ratings contacts list)")
    )
  },
  Effect.fnUntraced(function* ({ id }) {
    const trimmed = id.trim()
    const outcome = yield* (yield* ContactRequestRepository).close(trimmed, isoTimestamp(Date.now()))
    switch (outcome._tag) {
      case "NotFound":
        return yield* fail(
          `no coverage request with id ${JSON.stringify(trimmed)} (an id is the UUID in the first column of ratings contacts list)`
        )
      case "AlreadyClosed":
        return yield* Console.log(
          `coverage request ${trimmed} was already closed (at ${outcome.closed_at}); nothing changed`
        )
      case "Closed":
        return yield* Console.log(`coverage request ${trimmed} closed`)
    }
  }, Effect.provide(AppLayer))
).pipe(Command.withDescription("Close a coverage request; the same entity and address may then ask again"))

export const ContactsCommand = Command.make("contacts").pipe(
  Command.withDescription("The queue of coverage requests (POST /api/v1/contacts)"),
  Command.withSubcommands([list, close])
)
