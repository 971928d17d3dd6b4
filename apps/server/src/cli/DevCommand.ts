/**
 * `ratings dev token`: mint an admin JWT from the local development identity
 * provider (an ES256 key pair under <data>/dev-idp/, created on first use).
 * A server trusts it only when started with NODE_ENV=development or test
 * (`npm start` sets development when NODE_ENV is unset) and without
 * RATINGS_JWT_* settings; it uses the same key pair, whenever it was made.
 */
import { mintDevAdminToken } from "@ratings/adapters-http/server/DevToken"
import { AdminRoles } from "@ratings/domain/model/Caller"
import { Console, Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { ServerConfig } from "../Config.ts"
import { DevAudience, DevIssuer, devKeyPair } from "@ratings/adapters-http/server/DevIdentityProvider"
import { CommandFailed } from "./CommandFailed.ts"

const token = Command.make(
  "token",
  {
    subject: Flag.String("subject").pipe(
      Flag.withDescription("The admin user"),
      Flag.withDefault("dev-admin")
    ),
    role: Flag.Literals("role", AdminRoles).pipe(Flag.withDefault("admin")),
    ttl: Flag.Int("ttl").pipe(Flag.withDescription("Lifetime in seconds"), Flag.withDefault(3600))
  },
  Effect.fnUntraced(function* ({ subject, role, ttl }) {
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
      subject,
      role,
      ttlSeconds: ttl
    }).pipe(
      Effect.catch((e) =>
        Console.error(e.message).pipe(Effect.andThen(new CommandFailed({ message: e.message })))
      )
    )
    yield* Console.log(jwt)
  })
).pipe(Command.withDescription("Mint an admin JWT from the local development identity provider"))

export const DevCommand = Command.make("dev").pipe(
  Command.withDescription("Development helpers"),
  Command.withSubcommands([token])
)
