/**
 * The server key that encrypts webhook signing keys at rest (SecretBox.ts).
 * Production sets RATINGS_SECRET_KEY (32 bytes, base64); without it the server
 * generates one on first start and keeps it in the data folder, readable by
 * its owner only.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect, Option, Redacted, Schema } from "effect"
import { generateKey, parseKey } from "./SecretBox.ts"

export class ServerKeyError extends Schema.TaggedError<ServerKeyError>()("ServerKeyError", {
  message: Schema.String
}) {}

export interface ServerKeySettings {
  /** RATINGS_SECRET_KEY, when set. */
  readonly secretKey: Option.Option<Redacted.Redacted<string>>
  /** Where the generated key is kept (`secret.key`) when it is not. */
  readonly dataDir: string
}

const check = (key: string, where: string): Effect.Effect<Redacted.Redacted<string>, ServerKeyError> =>
  parseKey(key) !== undefined
    ? Effect.succeed(Redacted.make(key.trim()))
    : Effect.fail(new ServerKeyError({ message: `${where} must be 32 bytes encoded in base64` }))

export const resolveServerKey = (
  config: ServerKeySettings
): Effect.Effect<Redacted.Redacted<string>, ServerKeyError> =>
  Effect.suspend(() => {
    if (Option.isSome(config.secretKey))
      return check(Redacted.value(config.secretKey.value), "RATINGS_SECRET_KEY")
    const file = join(config.dataDir, "secret.key")
    if (existsSync(file)) return check(readFileSync(file, "utf8"), file)
    return Effect.try({
      try: () => {
        mkdirSync(config.dataDir, { recursive: true, mode: 0o700 })
        const key = generateKey()
        writeFileSync(file, `${key}\n`, { mode: 0o600, flag: "wx" })
        return Redacted.make(key)
      },
      catch: (e) => new ServerKeyError({ message: `could not create ${file}: ${String(e)}` })
    })
  })
