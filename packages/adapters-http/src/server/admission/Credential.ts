/**
 * What a request presents to admission: its credential, read from the
 * `Authorization` header (spec part 5) or, on the explorer's pages and forms
 * only, from the `ratings_key` cookie its sign-in form sets (never on the
 * API, /mcp or anything else: a cookie there would invite cross-site
 * requests); and its client address: the socket's, or behind trusted proxies
 * the one they forwarded.
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

/** The cookie the explorer's sign-in form keeps an API key in. */
export const KeyCookie = "ratings_key"

/**
 * The first path segments of the explorer's pages and forms (its home is
 * `/`): the only paths on which the cookie is a credential. Its static
 * assets need no caller and are not among them.
 */
export const ExplorerSegments: ReadonlySet<string> = new Set([
  "protocols",
  "chains",
  "tokens",
  "oracles",
  "vaults",
  "organisations",
  "bridges",
  "incidents",
  "methodology",
  "quantum",
  "webhooks",
  "sign-in",
  "sign-out"
])

/** Whether the cookie counts on this path (a request target; its query is ignored). */
export const isExplorerPath = (target: string | undefined): boolean => {
  if (target === undefined || !target.startsWith("/")) return false
  const end = target.search(/[?#]/)
  const path = end === -1 ? target : target.slice(0, end)
  if (path === "/") return true
  const slash = path.indexOf("/", 1)
  const segment = slash === -1 ? path.slice(1) : path.slice(1, slash)
  return segment !== "" && ExplorerSegments.has(segment)
}

/** The value of the key cookie in a Cookie header, if it holds one that is not empty. */
export const keyCookieOf = (cookie: string | undefined): string | undefined => {
  if (cookie === undefined) return undefined
  for (const part of cookie.split(";")) {
    const eq = part.indexOf("=")
    if (eq === -1 || part.slice(0, eq).trim() !== KeyCookie) continue
    const value = part.slice(eq + 1).trim()
    return value === "" ? undefined : value
  }
  return undefined
}

/**
 * The credential a request presents on its path: the Authorization header's,
 * else on an explorer path the key cookie's (any value but a key is
 * malformed), else none.
 */
export const requestCredential = (
  authorization: string | undefined,
  cookie: string | undefined,
  target: string | undefined
): Credential => {
  const header = credentialOf(authorization)
  if (header._tag !== "None" || !isExplorerPath(target)) return header
  const key = keyCookieOf(cookie)
  if (key === undefined) return NoCredential
  return { _tag: "ApiKey", key }
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
