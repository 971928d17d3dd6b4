/**
 * Whose counter a request draws on, and the counters' keys. A keyed caller
 * is counted by its API key id (a key is issued at one tier, so its counter
 * has one limit), an admin by subject, an anonymous caller by the client
 * address authentication established (an IPv6 client by its /64, the block
 * one subscriber usually holds). Failed credentials, coverage requests and
 * MCP sessions have counters of their own per address.
 */
import { createHash } from "node:crypto"
import type { RateWindow } from "@ratings/domain/access/RequestLimits"
import type { Caller } from "@ratings/domain/model/Caller"
import { Result } from "effect"
import { IpNetwork, NetAddress } from "effect/net"
import { figuresOf } from "./Windows.ts"

const parseAddressKey = (address: string): string => {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address
  const ip = NetAddress.ipFromString(bare)
  if (Result.isFailure(ip)) return address
  const canonical = NetAddress.toCanonical(ip.success)
  if (NetAddress.isIpv4Address(canonical)) return NetAddress.formatIp(canonical)
  return Result.match(IpNetwork.fromAddress(canonical, 64), {
    onFailure: () => NetAddress.formatIp(canonical),
    onSuccess: IpNetwork.format
  })
}

/** The most strings each memo below holds (an address repeats on every request of a client). */
const MaxMemoStrings = 10_000

/**
 * Strings worked out once per input and then handed out as the same string,
 * at most `MaxMemoStrings` (the oldest forgotten first): a counter's key built
 * anew on every request is a new string whose hash the store's map must work
 * out again; the same string keeps its hash.
 */
const memoString = (build: (input: string) => string) => {
  const known = new Map<string, string>()
  return (input: string): string => {
    const hit = known.get(input)
    if (hit !== undefined) return hit
    const made = build(input)
    if (known.size >= MaxMemoStrings) known.delete(known.keys().next().value!)
    known.set(input, made)
    return made
  }
}

/** The address an anonymous counter is keyed by: an IPv4 address, or the /64 of an IPv6 one. */
export const addressKey = memoString(parseAddressKey)

const keySubject = memoString((keyId) => `key:${keyId}`)
const addressSubject = memoString((address) => `ip:${address}`)

/** Whose counter a request draws on. An admin's subject (often an e-mail) is hashed, not stored in Redis. */
export const subjectOf = (caller: Caller): string => {
  switch (caller._tag) {
    case "ApiKey":
      return keySubject(caller.key_id)
    case "Admin":
      return `admin:${createHash("sha256").update(caller.subject).digest("base64url").slice(0, 22)}`
    case "Anonymous":
      return anonymousSubject(caller.ip)
  }
}

/** The subject of an anonymous request from `address` (what `subjectOf` gives its caller). */
export const anonymousSubject = (address: string): string => addressSubject(addressKey(address))

/** The subject prefix of an address's failed-credential counters. */
export const FailedPrefix = "authfail:"

const failedSubjectOf = memoString((key) => `${FailedPrefix}${key}`)

/** The subject of an address's failed-credential counters. */
export const failedSubject = (address: string): string => failedSubjectOf(addressKey(address))

/** The subject of an address's counters of an allowance of its own (`contact:`, `mcp:`). */
export const allowanceSubject = (prefix: string, address: string): string => `${prefix}${addressKey(address)}`

/** Per window suffix, the counter keys worked out lately. */
const counterKeys = new Map<string, (subject: string) => string>()

/** The counter of `subject` in window `w`: `<subject>:<seconds>s`, the same string for the same pair. */
export const counterKey = (subject: string, w: RateWindow): string => {
  const suffix = figuresOf(w).suffix
  let bySubject = counterKeys.get(suffix)
  if (bySubject === undefined) {
    bySubject = memoString((s) => `${s}${suffix}`)
    counterKeys.set(suffix, bySubject)
  }
  return bySubject(subject)
}
