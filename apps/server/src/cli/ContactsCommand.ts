/**
 * `ratings contacts list|close`: the operators' queue of coverage requests
 * (POST /api/v1/contacts: "please rate X"). `list` shows one row per request
 * however many times it was sent, as a table or (`--json`) a JSON array with
 * the `receipt_ids` every sender was answered. The addresses are the
 * operators' to answer: they are printed here, and nowhere in the server's
 * logs. Stored text is printed so that it cannot disguise itself or the lines
 * around it, whatever it holds (`printable`, `printableJson`). `close`
 * closes an open request by its id or any reference id; the same entity and
 * address may then ask again (run/Contacts.ts).
 */
import { Argument, Command, Flag } from "effect/cli"
import { lazily } from "./Lazy.ts"

const load = () => import("./run/Contacts.ts")

const DefaultLimit = 500

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
  (input) => lazily(load, (run) => run.list(input))
).pipe(
  Command.withDescription(
    "List coverage requests, oldest first: id, received, status, type, entity, name, email, message"
  )
)

const close = Command.make(
  "close",
  {
    id: Argument.String("id").pipe(
      Argument.withDescription(
        "The request's id (the first column of ratings contacts list) or a reference id a sender was answered"
      )
    )
  },
  ({ id }) => lazily(load, (run) => run.close(id))
).pipe(Command.withDescription("Close a coverage request; the same entity and address may then ask again"))

export const ContactsCommand = Command.make("contacts").pipe(
  Command.withDescription("The queue of coverage requests (POST /api/v1/contacts)"),
  Command.withSubcommands([list, close])
)
