/**
 * What a request presents to admission: its credential, read from the
 * `Authorization` header (spec part 5), and its client address: the
 * socket's, or behind trusted proxies the one they forwarded.
 */
import { isIP } from "node:net"
import type { Option } from "effect"
import { KeyPrefix } from "../ApiKeyCrypto.ts"

/** What the Authorization header holds. */
export type Credential =
  | { readonly _tag: "None" }
  | { readonly _tag: "ApiKey"; readonly key: string }
  | { readonly _tag: "Jwt"; readonly token: string }
  /** A header that is not `Bearer <one token>` (another scheme, or an empty token). */
  | { readonly _tag: "Malformed" }

const BearerPattern = /^Bearer +([^\s]+) *$/i

const NoCredential: Credential = { _tag: "None" }
const Malformed: Credential = { _tag: "Malformed" }

export const credentialOf = (authorization: string | undefined): Credential => {
  if (authorization === undefined || authorization.trim() === "") return NoCredential
  const token = BearerPattern.exec(authorization)?.[1]
  if (token === undefined) return Malformed
  return token.startsWith(KeyPrefix) ? { _tag: "ApiKey", key: token } : { _tag: "Jwt", token }
}

/**
 * The client's address: the socket's (`unknown` without one), or behind
 * `hops` trusted proxies the entry of X-Forwarded-For that the outermost
 * trusted proxy saw (counted from the right: entries further left are
 * whatever the client chose to send).
 */
export const addressOf = (
  remoteAddress: string | undefined,
  forwardedFor: string | undefined,
  hops: number
): string => {
  const socket = remoteAddress ?? "unknown"
  if (hops === 0 || forwardedFor === undefined) return socket
  const entries = forwardedFor
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")
  const candidate = entries[Math.max(0, entries.length - hops)]
  return candidate !== undefined && isIP(candidate) !== 0 ? candidate : socket
}

/** `addressOf` for the socket's address as Effect's request gives it. */
export const clientAddressOf = (
  remoteAddress: Option.Option<string>,
  forwardedFor: string | undefined,
  hops: number
): string => addressOf(remoteAddress._tag === "Some" ? remoteAddress.value : undefined, forwardedFor, hops)
