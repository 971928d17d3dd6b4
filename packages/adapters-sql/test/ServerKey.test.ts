/**
 * The server key: RATINGS_SECRET_KEY when set (checked: base64 of exactly 32
 * bytes), else the data folder's `secret.key`, generated on first start with
 * mode 0600 and read back on every later one; a malformed key stops the start
 * naming where it came from, without printing it.
 */
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Option, Redacted } from "effect"
import { generateKey, SecretBox } from "../src/SecretBox.ts"
import { resolveServerKey } from "../src/ServerKey.ts"

const folder = () => mkdtempSync(join(tmpdir(), "ratings-server-key-"))
const none = Option.none<Redacted.Redacted<string>>()

describe("server key", () => {
  it.effect(
    "without RATINGS_SECRET_KEY a key is generated into <data>/secret.key (mode 0600) once, and read back after",
    () =>
      Effect.gen(function* () {
        const dataDir = join(folder(), "data")
        const first = yield* resolveServerKey({ secretKey: none, dataDir })
        const file = join(dataDir, "secret.key")
        assert.strictEqual(statSync(file).mode & 0o777, 0o600)
        assert.strictEqual(readFileSync(file, "utf8").trim(), Redacted.value(first))
        const again = yield* resolveServerKey({ secretKey: none, dataDir })
        assert.strictEqual(Redacted.value(again), Redacted.value(first))
        // A usable SecretBox key: what the first start sealed, the next one opens.
        const sealed = yield* Effect.gen(function* () {
          return yield* (yield* SecretBox).seal("whsec_example")
        }).pipe(Effect.provide(SecretBox.layer(first)))
        const opened = yield* Effect.gen(function* () {
          return yield* (yield* SecretBox).open(sealed)
        }).pipe(Effect.provide(SecretBox.layer(again)))
        assert.strictEqual(opened, "whsec_example")
      })
  )

  it.effect("RATINGS_SECRET_KEY wins over the file, and is used trimmed", () =>
    Effect.gen(function* () {
      const key = generateKey()
      const resolved = yield* resolveServerKey({
        secretKey: Option.some(Redacted.make(` ${key}\n`)),
        dataDir: folder()
      })
      assert.strictEqual(Redacted.value(resolved), key)
    })
  )

  it.effect(
    "a key that is not the base64 of 32 bytes is refused naming the variable or the file, never echoing it",
    () =>
      Effect.gen(function* () {
        const short = Buffer.alloc(16).toString("base64")
        const fromEnv = yield* Effect.exit(
          resolveServerKey({ secretKey: Option.some(Redacted.make(short)), dataDir: folder() })
        )
        assert.isTrue(Exit.isFailure(fromEnv))
        assert.include(String(fromEnv), "RATINGS_SECRET_KEY must be 32 bytes encoded in base64")
        assert.notInclude(String(fromEnv), short)
        const dataDir = folder()
        writeFileSync(join(dataDir, "secret.key"), "not base64!\n")
        const fromFile = yield* Effect.exit(resolveServerKey({ secretKey: none, dataDir }))
        assert.isTrue(Exit.isFailure(fromFile))
        assert.include(String(fromFile), `${join(dataDir, "secret.key")} must be 32 bytes encoded in base64`)
      })
  )
})
