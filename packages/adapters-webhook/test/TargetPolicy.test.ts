import { BlockList, isIP } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { WebhookUrl } from "@ratings/domain/model/AlertRule"
import { Result, Schema } from "effect"
import * as fc from "fast-check"
import {
  type AddressKind,
  addressRefusal,
  classifyAddress,
  classifyIPv4,
  formatIPv4,
  parseIPv4,
  parseIPv6,
  parseIpLiteral,
  type TargetPolicy,
  validateWebhookUrl
} from "../src/TargetPolicy.ts"

const strict: TargetPolicy = { allowPrivateTargets: false, requireHttps: true }
const development: TargetPolicy = { allowPrivateTargets: true, requireHttps: false }

const kindOf = (literal: string): AddressKind | undefined => {
  const ip = parseIpLiteral(literal)
  return ip === undefined ? undefined : classifyAddress(ip)
}

/**
 * The non-public IPv4 space, written independently of the module (from the
 * brief and the IANA special-purpose registry) and matched by node's own
 * BlockList, so the module's range arithmetic is checked against another's.
 */
const refusedIPv4: ReadonlyArray<readonly [string, number]> = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4]
]
const refusedIPv4List = new BlockList()
for (const [base, bits] of refusedIPv4) refusedIPv4List.addSubnet(base, bits, "ipv4")

const toUint = (dotted: string) => dotted.split(".").reduce((acc, byte) => acc * 256 + Number(byte), 0)

/** Any IPv4 value, biased towards the edges and insides of the refused ranges. */
const anyIPv4 = fc.oneof(
  fc.integer({ min: 0, max: 2 ** 32 - 1 }),
  fc
    .tuple(fc.constantFrom(...refusedIPv4), fc.integer({ min: -2, max: 2 ** 24 }))
    .map(([[base, bits], offset]) => {
      const start = toUint(base)
      const size = 2 ** (32 - bits)
      const inRange = offset < 0 ? start + offset : offset % 2 === 0 ? start + (offset % size) : start + size
      return Math.min(2 ** 32 - 1, Math.max(0, inRange))
    })
)

/** A notation of `value` the URL parser and inet_aton accept: 1-4 parts, each decimal, octal or hex. */
const notationOf = (value: number) =>
  fc
    .record({
      parts: fc.integer({ min: 1, max: 4 }),
      radixes: fc.array(fc.constantFrom(10, 8, 16), { minLength: 4, maxLength: 4 }),
      upper: fc.boolean(),
      trailingDot: fc.boolean()
    })
    .map(({ parts, radixes, upper, trailingDot }) => {
      const bytes = [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255]
      const leading = bytes.slice(0, parts - 1)
      const rest = bytes.slice(parts - 1).reduce((acc, b) => acc * 256 + b, 0)
      const numbers = [...leading, rest]
      const text = numbers
        .map((n, i) => {
          const radix = radixes[i]!
          if (radix === 16)
            return (upper ? "0X" : "0x") + (upper ? n.toString(16).toUpperCase() : n.toString(16))
          if (radix === 8) return "0" + n.toString(8)
          return n.toString(10)
        })
        .join(".")
      return trailingDot ? `${text}.` : text
    })

const urlHostname = (host: string): string | undefined => {
  try {
    return new URL(`http://${host}/`).hostname
  } catch {
    return undefined
  }
}

describe("TargetPolicy", () => {
  describe("classification table (issue 6: no private, loopback or link-local targets)", () => {
    const table: ReadonlyArray<readonly [string, AddressKind]> = [
      ["127.0.0.1", "loopback"],
      ["127.255.255.254", "loopback"],
      ["::1", "loopback"],
      ["0:0:0:0:0:0:0:1", "loopback"],
      ["[::1]", "loopback"],
      ["10.0.0.1", "private"],
      ["172.16.0.1", "private"],
      ["172.31.255.255", "private"],
      ["192.168.1.1", "private"],
      ["fc00::1", "private"],
      ["fd12:3456:789a::1", "private"],
      ["100.64.0.1", "shared"],
      ["100.127.255.255", "shared"],
      ["169.254.169.254", "link_local"],
      ["169.254.0.1", "link_local"],
      ["fe80::1", "link_local"],
      ["fe80::1%eth0", "link_local"],
      ["febf:ffff::1", "link_local"],
      ["0.0.0.0", "unspecified"],
      ["::", "unspecified"],
      ["224.0.0.1", "multicast"],
      ["239.255.255.250", "multicast"],
      ["ff02::1", "multicast"],
      ["255.255.255.255", "broadcast"],
      ["240.0.0.1", "reserved"],
      ["0.1.2.3", "reserved"],
      ["192.0.2.10", "reserved"],
      ["2001:db8::1", "reserved"],
      ["100::1", "reserved"],
      // IPv4-mapped and other IPv6 forms that reach an IPv4 address.
      ["::ffff:127.0.0.1", "loopback"],
      ["::ffff:7f00:1", "loopback"],
      ["[::ffff:7f00:1]", "loopback"],
      ["::ffff:169.254.169.254", "link_local"],
      ["::ffff:a9fe:a9fe", "link_local"],
      ["::ffff:10.1.2.3", "private"],
      ["::ffff:0.0.0.0", "unspecified"],
      ["::ffff:0:127.0.0.1", "loopback"],
      ["::127.0.0.1", "loopback"],
      ["::8.8.8.8", "reserved"],
      ["64:ff9b::127.0.0.1", "loopback"],
      ["64:ff9b::a9fe:a9fe", "link_local"],
      ["2002:7f00:1::1", "loopback"],
      ["2002:c0a8:101::1", "private"],
      ["2001:0:4136:e378:8000:63bf:80ff:fffe", "loopback"],
      // Other notations of loopback that the URL parser and inet_aton accept.
      ["0x7f000001", "loopback"],
      ["2130706433", "loopback"],
      ["017700000001", "loopback"],
      ["0177.0.0.1", "loopback"],
      ["0x7f.0.0.1", "loopback"],
      ["0x7F.1", "loopback"],
      ["127.1", "loopback"],
      ["127.0.1", "loopback"],
      ["127.0.0.1.", "loopback"],
      ["0", "unspecified"],
      ["0xa9fea9fe", "link_local"],
      ["2852039166", "link_local"],
      // Public.
      ["8.8.8.8", "public"],
      ["1.1.1.1", "public"],
      ["172.15.255.255", "public"],
      ["172.32.0.1", "public"],
      ["100.63.255.255", "public"],
      ["100.128.0.0", "public"],
      ["169.253.255.255", "public"],
      ["223.255.255.255", "public"],
      ["::ffff:8.8.8.8", "public"],
      ["64:ff9b::808:808", "public"],
      ["2002:808:808::1", "public"],
      ["2606:4700:4700::1111", "public"],
      ["2001:4860:4860::8888", "public"]
    ]
    for (const [literal, kind] of table) {
      it(`${literal} is ${kind}`, () => {
        assert.strictEqual(kindOf(literal), kind)
        const refusal = addressRefusal(literal.replace(/^\[|\]$/g, ""), strict)
        if (kind === "public") assert.isUndefined(refusal)
        else assert.match(refusal ?? "", /refused target/)
        assert.isUndefined(addressRefusal(literal, development), "allowPrivateTargets allows everything")
      })
    }

    it("DNS names and malformed literals are not IP literals", () => {
      for (const host of [
        ...["example.com", "localhost", "1.2.3.4.5", "256.1.1.1", "1..1", "09.1.1.1", "0x1g"],
        ...["1.2.3.256", "1.2.65536", "1.16777216", "4294967296", "0x100000000"]
      ]) {
        assert.isUndefined(parseIpLiteral(host), host)
      }
      for (const host of [
        ":::",
        "1::2::3",
        "1:2:3:4:5:6:7:8:9",
        "12345::",
        "::ffff:1.2.3",
        "fe80::1%",
        "g::1"
      ]) {
        assert.isUndefined(parseIPv6(host), host)
      }
    })
  })

  describe("properties", () => {
    it("IPv4 classification agrees with node:net BlockList over the non-public ranges", () => {
      fc.assert(
        fc.property(anyIPv4, (value) => {
          const dotted = formatIPv4(value)
          assert.strictEqual(classifyIPv4(value) !== "public", refusedIPv4List.check(dotted, "ipv4"), dotted)
        }),
        { numRuns: 5_000 }
      )
    })

    it("every notation Node's URL parser accepts for an address parses to the same address", () => {
      fc.assert(
        fc.property(
          anyIPv4.chain((value) => fc.tuple(fc.constant(value), notationOf(value))),
          ([value, notation]) => {
            assert.strictEqual(parseIPv4(notation), value, notation)
            assert.strictEqual(urlHostname(notation), formatIPv4(value), notation)
          }
        ),
        { numRuns: 3_000 }
      )
    })

    it("on arbitrary numeric-looking hosts, the parser reads an IPv4 address exactly when the URL parser does", () => {
      const host = fc.string({ unit: fc.constantFrom(..."0123456789abcdefxX."), minLength: 1, maxLength: 20 })
      fc.assert(
        fc.property(host, (text) => {
          const mine = parseIPv4(text)
          const url = urlHostname(text)
          const urlIsIPv4 = url !== undefined && isIP(url) === 4
          if (mine !== undefined) assert.strictEqual(url, formatIPv4(mine), text)
          else assert.isFalse(urlIsIPv4, `${text} -> ${url}`)
        }),
        { numRuns: 5_000 }
      )
    })

    it("an IPv4-mapped IPv6 address is classified as the IPv4 address it maps, in both notations", () => {
      fc.assert(
        fc.property(anyIPv4, (value) => {
          const dotted = formatIPv4(value)
          const hex = `::ffff:${(value >>> 16).toString(16)}:${(value & 0xffff).toString(16)}`
          assert.strictEqual(kindOf(`::ffff:${dotted}`), classifyIPv4(value))
          assert.strictEqual(kindOf(hex), classifyIPv4(value))
          assert.strictEqual(
            kindOf(`[${urlHostname(`[::ffff:${dotted}]`)!.slice(1, -1)}]`),
            classifyIPv4(value)
          )
        }),
        { numRuns: 2_000 }
      )
    })

    it("every IPv6 text node accepts parses, to the same address as the URL parser's canonical form", () => {
      fc.assert(
        fc.property(fc.ipV6(), (text) => {
          assert.isTrue(isIP(text) === 6)
          const groups = parseIPv6(text)
          assert.isDefined(groups, text)
          const canonical = urlHostname(`[${text}]`)!.slice(1, -1)
          assert.deepStrictEqual(parseIPv6(canonical), groups, `${text} vs ${canonical}`)
        }),
        { numRuns: 3_000 }
      )
    })

    it("IPv6 outside the IPv4-embedding prefixes is public exactly in global unicast minus ULA and documentation", () => {
      const embedding = new BlockList()
      embedding.addSubnet("::", 96, "ipv6")
      embedding.addSubnet("::ffff:0:0", 96, "ipv6")
      embedding.addSubnet("::ffff:0:0:0", 96, "ipv6")
      embedding.addSubnet("64:ff9b::", 96, "ipv6")
      embedding.addSubnet("2002::", 16, "ipv6")
      embedding.addSubnet("2001::", 32, "ipv6")
      const globalUnicast = new BlockList()
      globalUnicast.addSubnet("2000::", 3, "ipv6")
      const notPublic = new BlockList()
      notPublic.addSubnet("2001:db8::", 32, "ipv6")
      // Random addresses, with the first group often at the edges of the special prefixes.
      const firstGroup = fc.oneof(
        fc.integer({ min: 0, max: 0xffff }),
        fc.constantFrom(0x1fff, 0x2000, 0x2001, 0x2606, 0x3fff, 0x4000, 0xfbff, 0xfc00, 0xfdff, 0xfe00),
        fc.constantFrom(0xfe7f, 0xfe80, 0xfebf, 0xfec0, 0xfeff, 0xff00, 0xffff, 0x0100, 0x0064)
      )
      const biased = fc
        .tuple(firstGroup, fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 7, maxLength: 7 }))
        .map(([first, rest]) => [first, ...rest].map((g) => g.toString(16)).join(":"))
      const anyIPv6 = fc.oneof(fc.ipV6(), biased)
      fc.assert(
        fc.property(anyIPv6, (text) => {
          if (embedding.check(text, "ipv6") || isIP(text) !== 6) return
          const expectedPublic = globalUnicast.check(text, "ipv6") && !notPublic.check(text, "ipv6")
          assert.strictEqual(kindOf(text) === "public", expectedPublic, text)
        }),
        { numRuns: 3_000 }
      )
    })

    it("at create time, a literal non-public address is refused in any notation of the URL", () => {
      fc.assert(
        fc.property(
          anyIPv4.filter((value) => classifyIPv4(value) !== "public").chain((value) => notationOf(value)),
          (notation) => {
            const result = validateWebhookUrl(`https://${notation}/hook`, strict)
            assert.isTrue(Result.isFailure(result), notation)
            if (Result.isFailure(result)) assert.strictEqual(result.failure.reason, "private_target")
            assert.isTrue(Result.isSuccess(validateWebhookUrl(`https://${notation}/hook`, development)))
          }
        ),
        { numRuns: 1_000 }
      )
    })
  })

  describe("validateWebhookUrl (issue 6: https outside development, no private targets; spec part 7: 422)", () => {
    const production: TargetPolicy = { allowPrivateTargets: false, requireHttps: true }
    const cases: ReadonlyArray<readonly [url: string, policy: TargetPolicy, expected: string]> = [
      ["https://hooks.example.com/ratings?team=1", production, "ok"],
      ["https://8.8.8.8/hook", production, "ok"],
      ["https://[2606:4700:4700::1111]/hook", production, "ok"],
      ["http://hooks.example.com/ratings", production, "https_required"],
      ["http://hooks.example.com/ratings", { allowPrivateTargets: false, requireHttps: false }, "ok"],
      ["ftp://hooks.example.com/", production, "unsupported_scheme"],
      ["javascript:alert(1)", development, "unsupported_scheme"],
      ["not a url", production, "invalid_url"],
      ["/relative/path", development, "invalid_url"],
      ["https://user:secret@hooks.example.com/", production, "credentials_in_url"],
      ["https://127.0.0.1/", production, "private_target"],
      ["https://localhost/", production, "private_target"],
      ["https://LOCALHOST./", production, "private_target"],
      ["https://api.localhost:8443/", production, "private_target"],
      ["https://0x7f000001/", production, "private_target"],
      ["https://2130706433/", production, "private_target"],
      ["https://[::1]/", production, "private_target"],
      ["https://[::ffff:127.0.0.1]/", production, "private_target"],
      ["https://169.254.169.254/latest/meta-data/", production, "private_target"],
      ["https://[::ffff:a9fe:a9fe]/", production, "private_target"],
      ["https://10.0.0.1/", production, "private_target"],
      ["https://[fd00::1]/", production, "private_target"],
      ["https://[2606:4700::1111]:8443/hook", production, "ok"],
      ["https://[fe80::1]/x", production, "private_target"],
      ["https://[fc00::1]/x", production, "private_target"],
      ["https://[::1]/x", production, "private_target"],
      ["https://[::ffff:127.0.0.1]/x", production, "private_target"],
      ["http://[2606:4700::1111]/hook", production, "https_required"],
      ["http://[::1]:8080/hook", development, "ok"],
      ["https://0.0.0.0/", production, "private_target"],
      ["http://127.0.0.1:8080/", development, "ok"],
      ["http://localhost:8080/", development, "ok"]
    ]
    for (const [url, policy, expected] of cases) {
      it(`${url} (${policy.requireHttps ? "https required" : "http allowed"}, ${policy.allowPrivateTargets ? "private allowed" : "private refused"}) -> ${expected}`, () => {
        const result = validateWebhookUrl(url, policy)
        if (expected === "ok") {
          assert.isTrue(Result.isSuccess(result), JSON.stringify(result))
        } else {
          assert.isTrue(Result.isFailure(result), `${url} was accepted`)
          if (Result.isFailure(result)) {
            assert.strictEqual(result.failure._tag, "WebhookUrlRejected")
            assert.strictEqual(result.failure.reason, expected)
            assert.match(result.failure.message, /^webhook_url /)
            assert.notInclude(result.failure.message, "secret", "the message does not echo credentials")
          }
        }
      })
    }

    it("bracketed IPv6 hosts: a public one passes schema and policy; private ones pass the schema, and the policy refuses them saying why", () => {
      const schemaAccepts = Schema.is(WebhookUrl)
      for (const url of ["https://[2606:4700::1111]/hook", "https://[2001:4860:4860::8888]:8443/x"]) {
        assert.isTrue(schemaAccepts(url), url)
        assert.isTrue(Result.isSuccess(validateWebhookUrl(url, production)), url)
      }
      const refused: ReadonlyArray<readonly [url: string, says: RegExp]> = [
        ["https://[::1]/x", /refused target ::1: a loopback address; private targets are not allowed/],
        ["https://[fe80::1]/x", /refused target fe80::1: a link-local address/],
        ["https://[fc00::1]/x", /refused target fc00::1: a private-network address/],
        // The URL parser rewrites the mapped address in hex; it is still loopback.
        ["https://[::ffff:127.0.0.1]/x", /refused target ::ffff:7f00:1: a loopback address/]
      ]
      for (const [url, says] of refused) {
        assert.isTrue(schemaAccepts(url), `the schema leaves ${url} to the policy`)
        const result = validateWebhookUrl(url, production)
        assert.isTrue(Result.isFailure(result), `${url} was accepted`)
        if (Result.isFailure(result)) {
          assert.strictEqual(result.failure.reason, "private_target", url)
          assert.match(result.failure.message, says, url)
          assert.notInclude(
            result.failure.message,
            "[",
            "the message names the address, not the bracketed host"
          )
        }
        assert.isTrue(
          Result.isSuccess(validateWebhookUrl(url, development)),
          `${url} is allowed in development`
        )
      }
    })

    it("the https rejection says that https is required", () => {
      const result = validateWebhookUrl("http://hooks.example.com/", production)
      assert.isTrue(Result.isFailure(result))
      if (Result.isFailure(result)) assert.match(result.failure.message, /must use https/)
    })
  })
})
