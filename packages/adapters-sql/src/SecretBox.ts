/**
 * Encryption at rest for secrets the service must read back (alert rules'
 * webhook signing keys): AES-256-GCM under a server key from configuration.
 * A database dump alone then yields no signing key; the server key lives
 * outside the database.
 *
 * Sealed text is `v1:<nonce>:<ciphertext>:<tag>` (base64 each part, a fresh
 * random 12-byte nonce per value). The version prefix leaves room for another
 * cipher or key without guessing what an old value is. An optional context
 * string is bound as associated data, so a sealed value copied onto another
 * row (another rule's id) fails to open instead of handing out the wrong key.
 */
import { createCipheriv, createDecipheriv, createSecretKey, randomBytes } from "node:crypto"
import { Context, Effect, Layer, Redacted, Schema } from "effect"

export class SecretBoxError extends Schema.TaggedError<SecretBoxError>()("SecretBoxError", {
  message: Schema.String
}) {}

export interface SecretBoxShape {
  /** Encrypts `plaintext`, bound to `context` when given. */
  readonly seal: (plaintext: string, context?: string) => Effect.Effect<string>
  /** Decrypts a sealed value; fails when the key or the context is not the one it was sealed with. */
  readonly open: (sealed: string, context?: string) => Effect.Effect<string, SecretBoxError>
}

const Version = "v1"
const KeyBytes = 32
const NonceBytes = 12
const TagBytes = 16
const Base64Pattern = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

const strictBase64 = (text: string): Buffer | undefined =>
  Base64Pattern.test(text) ? Buffer.from(text, "base64") : undefined

/** Reads a server key: standard base64 of exactly 32 bytes. */
export const parseKey = (keyBase64: string): Buffer | undefined => {
  const bytes = strictBase64(keyBase64.trim())
  return bytes !== undefined && bytes.length === KeyBytes ? bytes : undefined
}

const aad = (context: string | undefined): Buffer => Buffer.from(context ?? "", "utf8")

// The key is prepared once: node:crypto would otherwise accept the raw key bytes again on
// every cipher, which a fan-out opening thousands of rules' keys pays on each.
const make = (keyBytes: Buffer): SecretBoxShape => {
  const key = createSecretKey(keyBytes)
  return {
    seal: (plaintext, context) =>
      Effect.sync(() => {
        const nonce = randomBytes(NonceBytes)
        const cipher = createCipheriv("aes-256-gcm", key, nonce, { authTagLength: TagBytes })
        cipher.setAAD(aad(context))
        const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()])
        const tag = cipher.getAuthTag()
        return [Version, nonce, ciphertext, tag]
          .map((p) => (typeof p === "string" ? p : p.toString("base64")))
          .join(":")
      }),
    open: (sealed, context) =>
      Effect.suspend(() => {
        const parts = sealed.split(":")
        if (parts.length !== 4 || parts[0] !== Version) {
          return Effect.fail(new SecretBoxError({ message: `not a ${Version} sealed value` }))
        }
        const [nonce, ciphertext, tag] = parts.slice(1).map(strictBase64)
        if (
          nonce === undefined ||
          ciphertext === undefined ||
          tag === undefined ||
          nonce.length !== NonceBytes ||
          tag.length !== TagBytes
        ) {
          return Effect.fail(new SecretBoxError({ message: `malformed ${Version} sealed value` }))
        }
        return Effect.try({
          try: () => {
            const decipher = createDecipheriv("aes-256-gcm", key, nonce, { authTagLength: TagBytes })
            decipher.setAAD(aad(context))
            decipher.setAuthTag(tag)
            return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString("utf8")
          },
          // GCM cannot tell a wrong key from a tampered value, and must not say which.
          catch: () =>
            new SecretBoxError({
              message: "could not decrypt: wrong server key, wrong context or tampered value"
            })
        })
      })
  }
}

export class SecretBox extends Context.Service<SecretBox, SecretBoxShape>()(
  "@ratings/adapters-sql/SecretBox"
) {
  /** A box under the configured server key (base64 of 32 bytes); a malformed key fails the layer. */
  static readonly layer = (
    keyBase64: string | Redacted.Redacted<string>
  ): Layer.Layer<SecretBox, SecretBoxError> =>
    Layer.effect(
      SecretBox,
      Effect.suspend(() => {
        const key = parseKey(Redacted.isRedacted(keyBase64) ? Redacted.value(keyBase64) : keyBase64)
        return key === undefined
          ? Effect.fail(
              new SecretBoxError({ message: "the server key must be the base64 of exactly 32 bytes" })
            )
          : Effect.succeed(SecretBox.of(make(key)))
      })
    )

  /** A box under a random key that dies with the layer: for tests only, since nothing sealed survives it. */
  static readonly layerRandom: Layer.Layer<SecretBox> = Layer.effect(
    SecretBox,
    Effect.sync(() => SecretBox.of(make(randomBytes(KeyBytes))))
  )
}

/** A fresh server key in the configuration format, for operators setting one up. */
export const generateKey = (): string => randomBytes(KeyBytes).toString("base64")
