/**
 * What `ratings keys create|list|revoke` do (the commands: KeysCommand.ts).
 * A key is printed once when it is created; only its hash and a short prefix
 * are stored.
 */
import { issueApiKey } from "@ratings/adapters-http/server/ApiKeyCrypto"
import type { KeyTier } from "@ratings/domain/model/Caller"
import { isoTimestamp } from "@ratings/domain/model/Primitives"
import { ApiKeyRepository } from "@ratings/domain/ports/ApiKeyRepository"
import { Console, Effect, Option } from "effect"
import { AppLayer } from "../../AppLayer.ts"
import { CommandFailed } from "../CommandFailed.ts"

export const create = Effect.fnUntraced(function* (input: {
  readonly tier: KeyTier
  readonly name: string
  readonly account: Option.Option<string>
}) {
  const keys = yield* ApiKeyRepository
  const { key, record } = issueApiKey({
    name: input.name,
    tier: input.tier,
    account_id: Option.getOrUndefined(input.account)
  })
  const info = yield* keys.create(record)
  yield* Console.log(`${key}\n`)
  yield* Console.error(
    `key ${info.id} (${info.tier}, account ${info.account_id}) created. It is shown this once: store it now.`
  )
}, Effect.provide(AppLayer))

export const list = Effect.fnUntraced(function* () {
  const keys = yield* (yield* ApiKeyRepository).list()
  for (const k of keys) {
    yield* Console.log(
      [k.id, k.prefix + "…", k.tier, k.account_id, k.name, k.created_at, k.revoked_at ?? "active"].join("\t")
    )
  }
}, Effect.provide(AppLayer))

export const revoke = Effect.fnUntraced(function* (id: string) {
  const done = yield* (yield* ApiKeyRepository).revoke(id, isoTimestamp(Date.now()))
  if (!done) {
    yield* Console.error(`no active key with id ${id}`)
    return yield* new CommandFailed({ message: "failed" })
  }
  yield* Console.log(`key ${id} revoked`)
}, Effect.provide(AppLayer))
