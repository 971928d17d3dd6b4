/**
 * `ratings dev token`: mint an admin JWT from the local development identity
 * provider (an ES256 key pair under <data>/dev-idp/, created on first use).
 * A server trusts it only when started with NODE_ENV=development or test
 * (`npm start` sets development when NODE_ENV is unset) and without
 * RATINGS_JWT_* settings; it uses the same key pair, whenever it was made
 * (run/Dev.ts).
 */
import { Command, Flag } from "effect/cli"
import { AdminRoleChoices } from "./Choices.ts"
import { lazily } from "./Lazy.ts"

const token = Command.make(
  "token",
  {
    subject: Flag.String("subject").pipe(
      Flag.withDescription("The admin user"),
      Flag.withDefault("dev-admin")
    ),
    role: Flag.Literals("role", AdminRoleChoices).pipe(
      Flag.withDescription("The admin role"),
      Flag.withDefault("admin")
    ),
    ttl: Flag.Int("ttl").pipe(Flag.withDescription("Lifetime in seconds"), Flag.withDefault(3600))
  },
  (input) =>
    lazily(
      () => import("./run/Dev.ts"),
      (run) => run.token(input)
    )
).pipe(Command.withDescription("Mint an admin JWT from the local development identity provider"))

export const DevCommand = Command.make("dev").pipe(
  Command.withDescription("Development helpers"),
  Command.withSubcommands([token])
)
