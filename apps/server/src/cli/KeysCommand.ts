/**
 * `ratings keys create|list|revoke`: API keys. A key is printed once when it is
 * created; only its hash and a short prefix are stored (run/Keys.ts).
 */
import { Argument, Command, Flag } from "effect/cli"
import { KeyTierChoices } from "./Choices.ts"
import { lazily } from "./Lazy.ts"

const load = () => import("./run/Keys.ts")

const create = Command.make(
  "create",
  {
    tier: Flag.Literals("tier", KeyTierChoices).pipe(Flag.withDescription("The key's tier")),
    name: Flag.String("name").pipe(Flag.withDescription("What the key is for")),
    account: Flag.String("account").pipe(
      Flag.withDescription(
        "Account the key belongs to (exports and alert rules are per account); new when absent"
      ),
      Flag.optional
    )
  },
  (input) => lazily(load, (run) => run.create(input))
).pipe(Command.withDescription("Create an API key and print it once"))

const list = Command.make("list", {}, () => lazily(load, (run) => run.list())).pipe(
  Command.withDescription("List API keys (never the keys themselves)")
)

const revoke = Command.make("revoke", { id: Argument.String("id") }, ({ id }) =>
  lazily(load, (run) => run.revoke(id))
).pipe(Command.withDescription("Revoke an API key"))

export const KeysCommand = Command.make("keys").pipe(
  Command.withDescription("Manage API keys"),
  Command.withSubcommands([create, list, revoke])
)
