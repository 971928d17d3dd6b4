/**
 * `ratings keys create|list|revoke`: API keys. A key is printed once when it is
 * created; only its hash and a short prefix are stored.
 */
import { issueApiKey } from "@ratings/adapters-http/server/ApiKeyCrypto"
import { KeyTiers } from "@ratings/domain/model/Caller"
import { isoTimestamp } from "@ratings/domain/model/Primitives"
import { ApiKeyRepository } from "@ratings/domain/ports/ApiKeyRepository"
import { Console, Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { AppLayer } from "../AppLayer.ts"
import { CommandFailed } from "./CommandFailed.ts"

const create = Command.make(
  "create",
  {
    tier: Flag.Literals("tier", KeyTiers).pipe(Flag.withDescription("free, pro or enterprise")),
    name: Flag.String("name").pipe(Flag.withDescription("What the key is for")),
    account: Flag.String("account").pipe(
      Flag.withDescription(
        "Account the key belongs to (exports and alert rules are per account); new when absent"
      ),
      Flag.optional
    )
  },
  Effect.fnUntraced(function* ({ tier, name, account }) {
    const keys = yield* ApiKeyRepository
    const { key, record } = issueApiKey({ name, tier, account_id: Option.getOrUndefined(account) })
    const info = yield* keys.create(record)
    yield* Console.log(`${key}\n`)
    yield* Console.error(
      `key ${info.id} (${info.tier}, account ${info.account_id}) created. It is shown this once: store it now.`
    )
  }, Effect.provide(AppLayer))
).pipe(Command.withDescription("Create an API key and print it once"))

const list = Command.make(
  "list",
  {},
  Effect.fnUntraced(function* () {
    const keys = yield* (yield* ApiKeyRepository).list()
    for (const k of keys) {
      yield* Console.log(
        [k.id, k.prefix + "…", k.tier, k.account_id, k.name, k.created_at, k.revoked_at ?? "active"].join(
          "\t"
        )
      )
    }
  }, Effect.provide(AppLayer))
).pipe(Command.withDescription("List API keys (never the keys themselves)"))

const revoke = Command.make(
  "revoke",
  { id: Argument.String("id") },
  Effect.fnUntraced(function* ({ id }) {
    const done = yield* (yield* ApiKeyRepository).revoke(id, isoTimestamp(Date.now()))
    if (!done) {
      yield* Console.error(`no active key with id ${id}`)
      return yield* new CommandFailed({ message: "failed" })
    }
    yield* Console.log(`key ${id} revoked`)
  }, Effect.provide(AppLayer))
).pipe(Command.withDescription("Revoke an API key"))

export const KeysCommand = Command.make("keys").pipe(
  Command.withDescription("Manage API keys"),
  Command.withSubcommands([create, list, revoke])
)
