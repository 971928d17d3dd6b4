/**
 * What `ratings dev token` does (the command and when a server trusts its
 * tokens: DevCommand.ts): an admin JWT signed with the data folder's
 * development key pair.
 */
import { DevAudience, DevIssuer, devKeyPair } from "@ratings/adapters-http/server/DevIdentityProvider"
import { mintDevAdminToken } from "@ratings/adapters-http/server/DevToken"
import type { AdminRole } from "@ratings/domain/model/Caller"
import { Console, Effect, Option } from "effect"
import { ServerConfig } from "../../Config.ts"
import { CommandFailed } from "../CommandFailed.ts"

export const token = Effect.fnUntraced(function* (input: {
  readonly subject: string
  readonly role: AdminRole
  readonly ttl: number
}) {
  const config = yield* ServerConfig
  if (Option.contains(config.environment, "production")) {
    yield* Console.error("the development identity provider is disabled when NODE_ENV=production")
    return yield* new CommandFailed({ message: "production" })
  }
  const pair = devKeyPair(config.dataDir)
  const jwt = yield* mintDevAdminToken({
    privateKeyPem: pair.privateKeyPem,
    issuer: DevIssuer,
    audience: DevAudience,
    subject: input.subject,
    role: input.role,
    ttlSeconds: input.ttl
  }).pipe(
    Effect.catch((e) =>
      Console.error(e.message).pipe(Effect.andThen(new CommandFailed({ message: e.message })))
    )
  )
  yield* Console.log(jwt)
})
