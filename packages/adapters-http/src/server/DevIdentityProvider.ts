/**
 * A local identity provider for development: an ES256 key pair under
 * `<data>/dev-idp/`, whose private key `ratings dev token` mints admin JWTs
 * with. A server trusts its public key only where development is explicit:
 * NODE_ENV set to exactly `development` or `test` (what `npm start` sets
 * when NODE_ENV is unset), and no RATINGS_JWT_* identity provider
 * configured. Unset, `production` or any other NODE_ENV: off. The server
 * says at start which it is, and creates the key pair then if it is
 * missing, so a token minted at any time after the start is accepted.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Option } from "effect"
import type { JwtConfig } from "./AuthConfig.ts"
import { type DevKeyPair, generateDevKeyPair } from "./DevToken.ts"

export const DevIssuer = "ratings-dev-idp"
export const DevAudience = "ratings-api"

const paths = (dataDir: string) => {
  const dir = join(dataDir, "dev-idp")
  return { dir, privateKey: join(dir, "private.pem"), publicKey: join(dir, "public.pem") }
}

const read = (p: ReturnType<typeof paths>): DevKeyPair | undefined =>
  existsSync(p.privateKey) && existsSync(p.publicKey)
    ? { privateKeyPem: readFileSync(p.privateKey, "utf8"), publicKeyPem: readFileSync(p.publicKey, "utf8") }
    : undefined

/**
 * The dev key pair, created on first use (private key readable by its owner
 * only). The pair is written into a fresh folder that is then renamed into
 * place, so a server and `ratings dev token` starting at once never see half
 * a pair or end up with two: whoever renames second reads the first's pair.
 */
export const devKeyPair = (dataDir: string): DevKeyPair => {
  const p = paths(dataDir)
  const existing = read(p)
  if (existing !== undefined) return existing
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const staging = mkdtempSync(join(dataDir, ".dev-idp-"))
  const pair = generateDevKeyPair()
  writeFileSync(join(staging, "private.pem"), pair.privateKeyPem, { mode: 0o600 })
  writeFileSync(join(staging, "public.pem"), pair.publicKeyPem, { mode: 0o644 })
  try {
    renameSync(staging, p.dir)
    return pair
  } catch {
    rmSync(staging, { recursive: true, force: true })
    const winner = read(p)
    if (winner === undefined) throw new Error(`could not create the development key pair in ${p.dir}`)
    return winner
  }
}

/** Whether a server trusts the development identity provider, and why (printed at start). */
export type DevIdentityProviderStatus =
  | { readonly on: true; readonly reason: string }
  | { readonly on: false; readonly reason: string }

/** What the status depends on: NODE_ENV as configured, and the provider RATINGS_JWT_* configures, if any. */
export interface DevIdentityProviderSettings {
  readonly environment: Option.Option<string>
  readonly jwt: JwtConfig | undefined
}

export const devIdentityProviderStatus = (config: DevIdentityProviderSettings): DevIdentityProviderStatus => {
  if (config.jwt !== undefined) return { on: false, reason: "RATINGS_JWT_* configures the identity provider" }
  return Option.match(config.environment, {
    onNone: () => ({
      on: false,
      reason: "NODE_ENV is unset; it is on only with NODE_ENV=development or NODE_ENV=test"
    }),
    onSome: (environment) =>
      environment === "production"
        ? { on: false, reason: "NODE_ENV=production" }
        : { on: true, reason: `NODE_ENV=${environment}` }
  })
}
