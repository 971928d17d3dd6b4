/**
 * A local identity provider for development: `ratings dev token` keeps an ES256
 * key pair under `<data>/dev-idp/` and mints admin JWTs with it; outside
 * production, a server without a configured identity provider trusts that key.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { type DevKeyPair, generateDevKeyPair } from "@ratings/adapters-http/server/DevToken"

export const DevIssuer = "ratings-dev-idp"
export const DevAudience = "ratings-api"

const paths = (dataDir: string) => {
  const dir = join(dataDir, "dev-idp")
  return { dir, privateKey: join(dir, "private.pem"), publicKey: join(dir, "public.pem") }
}

/** The dev key pair, created on first use (private key readable by its owner only). */
export const devKeyPair = (dataDir: string): DevKeyPair => {
  const p = paths(dataDir)
  if (existsSync(p.privateKey) && existsSync(p.publicKey)) {
    return {
      privateKeyPem: readFileSync(p.privateKey, "utf8"),
      publicKeyPem: readFileSync(p.publicKey, "utf8")
    }
  }
  mkdirSync(p.dir, { recursive: true, mode: 0o700 })
  const pair = generateDevKeyPair()
  writeFileSync(p.privateKey, pair.privateKeyPem, { mode: 0o600 })
  writeFileSync(p.publicKey, pair.publicKeyPem, { mode: 0o644 })
  return pair
}

/** The dev public key, if `ratings dev token` has created one. */
export const devPublicKey = (dataDir: string): string | undefined => {
  const p = paths(dataDir)
  return existsSync(p.publicKey) ? readFileSync(p.publicKey, "utf8") : undefined
}
