/**
 * Which webhook targets may be called (spec part 6: webhook URLs are
 * validated, SSRF targets refused). A caller chooses a webhook URL, so
 * without this policy the service would POST wherever it is pointed: its own
 * loopback ports, the cloud metadata endpoint, the private network behind
 * it. Unless configuration allows private targets (development and tests
 * do), every address that is not public unicast is refused, at create time
 * (`validateWebhookUrl`) and again at send time on the resolved addresses
 * (the undici transport of adapters-webhook). It lives in the domain so the
 * use case and the transport share one rule: plain data and functions, no
 * `node:*` import, URLs parsed by the WHATWG parser every runtime has.
 */
import { Context, Layer, Result, Schema } from "effect"
import * as IpNetwork from "effect/net/IpNetwork"
import * as NetAddress from "effect/net/NetAddress"

/** The configuration of the policy. */
export interface TargetPolicy {
  /** Allow loopback, private, link-local and other non-public targets (development and tests). */
  readonly allowPrivateTargets: boolean
  /** Refuse `http:` URLs (everywhere outside development). */
  readonly requireHttps: boolean
}

/** The parts of a parsed URL the policy and the transport read (a WHATWG `URL` has them all). */
export interface ParsedUrl {
  readonly href: string
  readonly protocol: string
  readonly username: string
  readonly password: string
  readonly hostname: string
  readonly origin: string
  readonly pathname: string
  readonly search: string
}

// The domain compiles without DOM or Node typings: it declares the one global it uses.
const WhatwgUrl = (globalThis as unknown as { readonly URL: new (input: string) => ParsedUrl }).URL

/**
 * The configured policy as a service, so the use case that validates a
 * webhook URL at create time reads the same configuration as the transport
 * that applies it at send time.
 */
export class WebhookTargetPolicy extends Context.Service<WebhookTargetPolicy, TargetPolicy>()(
  "@ratings/domain/webhooks/WebhookTargetPolicy"
) {
  static readonly layer = (policy: TargetPolicy): Layer.Layer<WebhookTargetPolicy> =>
    Layer.succeed(WebhookTargetPolicy, WebhookTargetPolicy.of(policy))

  /** Production's policy: https only, public targets only. */
  static readonly strict: TargetPolicy = { allowPrivateTargets: false, requireHttps: true }

  /** Development and tests: http allowed, loopback and private receivers allowed. */
  static readonly permissive: TargetPolicy = { allowPrivateTargets: true, requireHttps: false }
}

/** What an IP address is, as far as calling it goes; only `public` is callable under the strict policy. */
export type AddressKind =
  | "public"
  | "unspecified"
  | "loopback"
  | "private"
  | "shared"
  | "link_local"
  | "multicast"
  | "broadcast"
  | "reserved"

const kindDescriptions: { readonly [K in AddressKind]: string } = {
  public: "a public address",
  unspecified: "the unspecified address",
  loopback: "a loopback address",
  private: "a private-network address",
  shared: "a carrier-grade NAT (shared, 100.64.0.0/10) address",
  link_local: "a link-local address (this includes cloud metadata endpoints)",
  multicast: "a multicast address",
  broadcast: "the broadcast address",
  reserved: "a reserved or special-purpose address"
}

/** A parsed IP address (effect/net). */
export type IpAddress = NetAddress.IpAddress

// --- parsing ---------------------------------------------------------------
// effect/net parses strict dotted quads and every IPv6 text (compression, an
// embedded IPv4 tail, zones). The legacy IPv4 notations below are the one
// thing it refuses by design, and the one thing a target check must not:
// the WHATWG URL parser and inet_aton read `0x7f000001`, `2130706433` and
// `0177.1` as 127.0.0.1, so a check blind to them is bypassed by them.

const parseIPv4Part = (part: string): number | undefined => {
  let digits = part
  let radix = 10
  if (/^0x/i.test(digits)) {
    digits = digits.slice(2)
    radix = 16
  } else if (digits.length > 1 && digits.startsWith("0")) {
    digits = digits.slice(1)
    radix = 8
  }
  // "0x" alone is zero for both the URL parser and inet_aton.
  if (digits === "") return radix === 10 ? undefined : 0
  const pattern = radix === 16 ? /^[0-9a-f]+$/i : radix === 8 ? /^[0-7]+$/ : /^[0-9]+$/
  if (!pattern.test(digits)) return undefined
  const value = Number.parseInt(digits, radix)
  return Number.isSafeInteger(value) ? value : undefined
}

/**
 * An IPv4 address in any notation the WHATWG URL host parser accepts (and
 * `inet_aton`, which `getaddrinfo` uses): one to four dot-separated parts,
 * each decimal, octal (leading 0) or hex (0x), the last part filling the
 * remaining bytes; one trailing dot is allowed. The value is 0 .. 2^32-1.
 * Every notation (`0x7f000001`, `2130706433`, `0177.1`) is parsed, because a
 * check that only knows dotted quads is bypassed by the others; the rest of
 * the address work is effect/net's (`NetAddress`, `IpNetwork`).
 */
export const parseIPv4 = (text: string): number | undefined => {
  const parts = text.split(".")
  if (parts.length > 1 && parts[parts.length - 1] === "") parts.pop()
  if (parts.length === 0 || parts.length > 4) return undefined
  const numbers: Array<number> = []
  for (const part of parts) {
    const n = parseIPv4Part(part)
    if (n === undefined) return undefined
    numbers.push(n)
  }
  const last = numbers.pop()!
  if (numbers.some((n) => n > 255)) return undefined
  if (last >= 256 ** (4 - numbers.length)) return undefined
  let value = last
  numbers.forEach((n, i) => {
    value += n * 256 ** (3 - i)
  })
  return value
}

const ipv4Of = (value: number): NetAddress.Ipv4Address =>
  NetAddress.ipv4FromBytesUnsafe(
    Uint8Array.of(value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255)
  )

/** An IPv6 address, with or without a zone (`fe80::1%eth0`, checked and dropped). */
const parseIPv6Address = (text: string): NetAddress.Ipv6Address | undefined => {
  const zone = text.indexOf("%")
  if (zone === -1) return Result.getOrUndefined(NetAddress.ipv6FromString(text))
  if (Result.isFailure(NetAddress.scopedIpv6LiteralFromString(text))) return undefined
  return Result.getOrUndefined(NetAddress.ipv6FromString(text.slice(0, zone)))
}

/**
 * An IPv6 address as its eight 16-bit groups: `::` compression, an embedded
 * dotted IPv4 tail (`::ffff:127.0.0.1`) and a zone (`fe80::1%eth0`, dropped).
 */
export const parseIPv6 = (text: string): ReadonlyArray<number> | undefined => {
  const address = parseIPv6Address(text)
  return address === undefined ? undefined : NetAddress.ipv6ToSegments(address)
}

/**
 * The address a host names literally (brackets around IPv6 allowed), or
 * undefined when the host is a DNS name.
 */
export const parseIpLiteral = (host: string): IpAddress | undefined => {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host
  if (bare.includes(":")) return parseIPv6Address(bare)
  const value = parseIPv4(bare)
  return value === undefined ? undefined : ipv4Of(value)
}

/** Dotted-quad form of an IPv4 value, for messages. */
export const formatIPv4 = (value: number): string => NetAddress.formatIp(ipv4Of(value))

// --- classification ----------------------------------------------------------

const network = IpNetwork.fromStringUnsafe

const ipv4Ranges: ReadonlyArray<readonly [IpNetwork.IpNetwork, AddressKind]> = [
  [network("0.0.0.0/32"), "unspecified"],
  [network("255.255.255.255/32"), "broadcast"],
  [network("0.0.0.0/8"), "reserved"], // "this network"; Linux connects 0.x to the local host
  [network("10.0.0.0/8"), "private"],
  [network("100.64.0.0/10"), "shared"],
  [network("127.0.0.0/8"), "loopback"],
  [network("169.254.0.0/16"), "link_local"],
  [network("172.16.0.0/12"), "private"],
  [network("192.0.0.0/24"), "reserved"], // IETF protocol assignments
  [network("192.0.2.0/24"), "reserved"], // documentation
  [network("192.88.99.0/24"), "reserved"], // deprecated 6to4 relay anycast
  [network("192.168.0.0/16"), "private"],
  [network("198.18.0.0/15"), "reserved"], // benchmarking
  [network("198.51.100.0/24"), "reserved"], // documentation
  [network("203.0.113.0/24"), "reserved"], // documentation
  [network("224.0.0.0/4"), "multicast"],
  [network("240.0.0.0/4"), "reserved"]
]

const classifyIPv4Address = (address: NetAddress.Ipv4Address): AddressKind =>
  ipv4Ranges.find(([range]) => IpNetwork.contains(range, address))?.[1] ?? "public"

export const classifyIPv4 = (value: number): AddressKind => classifyIPv4Address(ipv4Of(value))

/** The IPv4 address held in groups `at` and `at + 1`, classified; `flip` complements it (Teredo). */
const embedded =
  (at: number, flip = 0) =>
  (groups: NetAddress.Ipv6Segments): AddressKind =>
    classifyIPv4((((groups[at]! ^ flip) << 16) | (groups[at + 1]! ^ flip)) >>> 0)

/** An embedded IPv4 address whose IPv6 wrapper is not itself routable: public becomes reserved. */
const nonRoutableWrapper = (groups: NetAddress.Ipv6Segments): AddressKind => {
  const kind = embedded(6)(groups)
  return kind === "public" ? "reserved" : kind
}

/** First match wins; what none matches is public inside 2000::/3 (global unicast) and reserved outside. */
const ipv6Ranges: ReadonlyArray<
  readonly [IpNetwork.IpNetwork, AddressKind | ((groups: NetAddress.Ipv6Segments) => AddressKind)]
> = [
  [network("::/128"), "unspecified"],
  [network("::1/128"), "loopback"],
  [network("::ffff:0:0/96"), embedded(6)], // IPv4-mapped: the socket really talks to the IPv4 address
  [network("::ffff:0:0:0/96"), embedded(6)], // IPv4-translated (SIIT)
  [network("::/96"), nonRoutableWrapper], // the deprecated IPv4-compatible form
  [network("64:ff9b::/96"), embedded(6)], // well-known NAT64: the gateway forwards to the IPv4
  [network("64:ff9b:1::/48"), "private"], // local-use NAT64
  [network("2002::/16"), embedded(1)], // 6to4: the relay forwards to the IPv4 in bits 16..47
  [network("2001::/32"), embedded(6, 0xffff)], // Teredo: the client's IPv4, complemented
  [network("2001:db8::/32"), "reserved"], // documentation
  [network("fc00::/7"), "private"], // unique local
  [network("fe80::/10"), "link_local"],
  [network("fec0::/10"), "private"], // deprecated site-local
  [network("ff00::/8"), "multicast"]
]

const globalUnicast = network("2000::/3")

const classifyIPv6Address = (address: NetAddress.Ipv6Address): AddressKind => {
  const match = ipv6Ranges.find(([range]) => IpNetwork.contains(range, address))
  if (match === undefined) return IpNetwork.contains(globalUnicast, address) ? "public" : "reserved"
  const kind = match[1]
  return typeof kind === "string" ? kind : kind(NetAddress.ipv6ToSegments(address))
}

export const classifyIPv6 = (groups: ReadonlyArray<number>): AddressKind =>
  classifyIPv6Address(
    Result.getOrThrow(NetAddress.ipv6FromSegments(groups as unknown as NetAddress.Ipv6Segments))
  )

export const classifyAddress = (address: IpAddress): AddressKind =>
  NetAddress.isIpv4Address(address) ? classifyIPv4Address(address) : classifyIPv6Address(address)

/**
 * Why an address (as written in a host or returned by DNS) may not be called
 * under the policy, or undefined when it may. A string that is not an IP
 * address is refused: callers pass resolved or literal addresses only.
 */
export const addressRefusal = (address: string, policy: TargetPolicy): string | undefined => {
  if (policy.allowPrivateTargets) return undefined
  const ip = parseIpLiteral(address)
  if (ip === undefined) return `refused target ${address}: not an IP address`
  const kind = classifyAddress(ip)
  if (kind === "public") return undefined
  return `refused target ${address}: ${kindDescriptions[kind]}; private targets are not allowed`
}

// --- URLs --------------------------------------------------------------------

export const WebhookUrlRejectionReasons = [
  "invalid_url",
  "unsupported_scheme",
  "https_required",
  "credentials_in_url",
  "private_target"
] as const

/** A webhook URL the policy will not call; the HTTP layer answers it with 422. */
export class WebhookUrlRejected extends Schema.TaggedError<WebhookUrlRejected>()("WebhookUrlRejected", {
  reason: Schema.Literals(WebhookUrlRejectionReasons),
  message: Schema.String
}) {}

const reject = (reason: (typeof WebhookUrlRejectionReasons)[number], message: string) =>
  Result.fail(new WebhookUrlRejected({ reason, message }))

/** The URL's hostname without IPv6 brackets and without one trailing dot (a fully qualified name). */
const bareHostname = (url: ParsedUrl): string => {
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname
  return host.endsWith(".") ? host.slice(0, -1) : host
}

/**
 * The checks of a URL that need no DNS, applied at send time as well: an
 * absolute http(s) URL, https when required, no credentials, and a host that
 * is not a literal non-public address.
 */
export const checkUrl = (url: string, policy: TargetPolicy): Result.Result<ParsedUrl, WebhookUrlRejected> => {
  let parsed: ParsedUrl
  try {
    parsed = new WhatwgUrl(url)
  } catch {
    return reject("invalid_url", "webhook_url is not an absolute URL")
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    return reject("unsupported_scheme", `webhook_url must be an http or https URL (got ${parsed.protocol})`)
  }
  if (policy.requireHttps && parsed.protocol !== "https:") {
    return reject("https_required", "webhook_url must use https: plain http is not allowed here")
  }
  if (parsed.username !== "" || parsed.password !== "") {
    // They would be stored and listed in clear text, and would not be sent anyway.
    return reject("credentials_in_url", "webhook_url must not contain a user name or password")
  }
  if (parsed.hostname === "") return reject("invalid_url", "webhook_url has no host")
  const refusal = parseIpLiteral(bareHostname(parsed)) && addressRefusal(bareHostname(parsed), policy)
  if (refusal) return reject("private_target", `webhook_url ${refusal}`)
  return Result.succeed(parsed)
}

/**
 * Create-time validation of a webhook URL: `checkUrl`, and `localhost` names,
 * which always resolve to loopback (RFC 6761). Any other name is resolved
 * and checked when a delivery is sent, so that DNS cannot bypass the policy:
 * a name may resolve anywhere, and differently tomorrow. At send time the
 * transport checks every address the name resolves to and the one connected to.
 */
export const validateWebhookUrl = (
  url: string,
  policy: TargetPolicy
): Result.Result<ParsedUrl, WebhookUrlRejected> => {
  const checked = checkUrl(url, policy)
  if (Result.isFailure(checked) || policy.allowPrivateTargets) return checked
  const host = bareHostname(checked.success).toLowerCase()
  if (host === "localhost" || host.endsWith(".localhost")) {
    return reject("private_target", `webhook_url refused target ${host}: a loopback name`)
  }
  return checked
}
