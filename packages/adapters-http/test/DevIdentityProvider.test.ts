/**
 * The development identity provider's key pair and switch: the pair is made
 * once per data folder (private key readable by its owner only) and then
 * read back by every server and `ratings dev token`; it is trusted only under
 * an explicit NODE_ENV other than production, and never beside a configured
 * RATINGS_JWT_* provider.
 */
import { mkdirSync, mkdtempSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Option } from "effect"
import { devIdentityProviderStatus, devKeyPair } from "../src/server/DevIdentityProvider.ts"

const folder = () => mkdtempSync(join(tmpdir(), "ratings-dev-idp-"))

describe("development key pair", () => {
  it("is created on first use under <data>/dev-idp/, the private key mode 0600, and the same pair is read back afterwards", () => {
    const dataDir = join(folder(), "data")
    const first = devKeyPair(dataDir)
    assert.include(first.privateKeyPem, "BEGIN PRIVATE KEY")
    assert.include(first.publicKeyPem, "BEGIN PUBLIC KEY")
    assert.strictEqual(statSync(join(dataDir, "dev-idp", "private.pem")).mode & 0o777, 0o600)
    assert.deepStrictEqual(devKeyPair(dataDir), first)
  })

  it("a half-written pair already in place is never replaced: the loser of the rename reports it", () => {
    const dataDir = folder()
    mkdirSync(join(dataDir, "dev-idp"))
    writeFileSync(join(dataDir, "dev-idp", "public.pem"), "not a pair")
    assert.throws(() => devKeyPair(dataDir), /could not create the development key pair/)
  })
})

describe("development identity provider status", () => {
  const noProvider = undefined

  it("is on under NODE_ENV development or test, off when NODE_ENV is unset or production, and off beside RATINGS_JWT_*", () => {
    assert.isTrue(devIdentityProviderStatus({ environment: Option.some("development"), jwt: noProvider }).on)
    assert.isTrue(devIdentityProviderStatus({ environment: Option.some("test"), jwt: noProvider }).on)
    const unset = devIdentityProviderStatus({ environment: Option.none(), jwt: noProvider })
    assert.isFalse(unset.on)
    assert.include(unset.reason, "NODE_ENV is unset")
    assert.deepStrictEqual(
      devIdentityProviderStatus({ environment: Option.some("production"), jwt: noProvider }),
      {
        on: false,
        reason: "NODE_ENV=production"
      }
    )
    const configured = { publicKey: "-----BEGIN PUBLIC KEY-----", issuer: "idp", audience: "api" }
    assert.deepStrictEqual(
      devIdentityProviderStatus({ environment: Option.some("development"), jwt: configured }),
      {
        on: false,
        reason: "RATINGS_JWT_* configures the identity provider"
      }
    )
  })
})
