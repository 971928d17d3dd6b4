import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import * as fc from "fast-check"
import {
  AlertRule,
  AlertRuleCreate,
  AlertRuleCreated,
  type AlertRuleRecord,
  matches,
  normalizeFilters,
  toAlertRule,
  toAlertRuleCreated,
  WebhookUrl
} from "../../src/model/AlertRule.ts"
import { EntityTypes } from "../../src/model/EntityType.ts"
import { AlertEventKinds } from "../../src/model/WebhookEvent.ts"

const record: AlertRuleRecord = {
  id: "0b8e7d21-3c4f-4a59-8e6d-1f2a3b4c5d6e",
  account_id: "acct-1",
  signing_key: "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
  name: "lending watch",
  entity_types: ["protocol"],
  slugs: [],
  events: [],
  channels: { webhook_url: "https://hooks.example.com/ratings" },
  created_at: "2026-08-01T00:00:00+00:00"
}

const event = (kind: string, entity_type: (typeof EntityTypes)[number], entity_slug: string) => ({
  event: kind,
  data: { entity_type, entity_slug }
})

describe("AlertRule", () => {
  it("the create request carries channels.webhook_url; filters are optional and mean all when omitted", () => {
    const decode = Schema.decodeUnknownSync(AlertRuleCreate)
    const minimal = decode({ channels: { webhook_url: "https://hooks.example.com/x" } })
    assert.deepStrictEqual(normalizeFilters(minimal), {
      name: null,
      entity_types: [],
      slugs: [],
      events: [],
      channels: { webhook_url: "https://hooks.example.com/x" }
    })
    assert.throws(() => decode({}))
    assert.throws(() => decode({ channels: { webhook_url: "ftp://example.com" } }))
    assert.throws(() => decode({ channels: { webhook_url: "not a url" } }))
    assert.throws(() => decode({ channels: { webhook_url: "https://user:pw@example.com/" } }))
    assert.throws(() => decode({ channels: { webhook_url: "https://x.example" }, events: ["webhook.test"] }))
    assert.throws(() => decode({ channels: { webhook_url: "https://x.example" }, slugs: ["Not_A_Slug"] }))
  })

  describe("webhook_url with an IPv6 literal host", () => {
    /** The schema's message for a URL, or undefined when it is valid. */
    const problem = (url: string): string | undefined => {
      try {
        Schema.decodeUnknownSync(WebhookUrl)(url)
        return undefined
      } catch (error) {
        return (error as Error).message
      }
    }
    const whatwgAccepts = (url: string): boolean => {
      try {
        new URL(url)
        return true
      } catch {
        return false
      }
    }

    it("a bracketed IPv6 host, with or without a port, is valid; refusing private ones is the target policy's job", () => {
      for (const url of [
        "https://[2606:4700::1111]/hook",
        "https://[2606:4700:4700::1111]:8443/hook?team=1#x",
        "https://[2001:4860:4860::8888]",
        "https://[::ffff:8.8.8.8]/hook",
        "http://[::1]:8080/hook",
        "https://[fe80::1]/x"
      ]) {
        assert.isUndefined(problem(url), url)
        assert.strictEqual(
          Schema.decodeUnknownSync(AlertRuleCreate)({ channels: { webhook_url: url } }).channels.webhook_url,
          url
        )
      }
    })

    it("every address fast-check writes as IPv6 is accepted in brackets, as the URL parser accepts it", () => {
      fc.assert(
        fc.property(fc.ipV6(), fc.option(fc.integer({ min: 1, max: 65_535 })), (address, port) => {
          const url = `https://[${address}]${port === null ? "" : `:${port}`}/hook`
          assert.isTrue(whatwgAccepts(url), url)
          assert.isUndefined(problem(url), url)
        }),
        { numRuns: 500 }
      )
    })

    it("a bracketed host is accepted exactly when the WHATWG URL parser accepts it as an IPv6 address", () => {
      const inside = fc.string({ unit: fc.constantFrom(..."0123456789abcdefABF:.%gz"), maxLength: 40 })
      fc.assert(
        fc.property(inside, (text) => {
          const url = `https://[${text}]/hook`
          assert.strictEqual(problem(url) === undefined, whatwgAccepts(url), url)
        }),
        { numRuns: 5_000 }
      )
    })

    it("malformed brackets are refused with a message naming the problem, not the vague 'absolute URL' one", () => {
      const cases: ReadonlyArray<readonly [url: string, says: RegExp]> = [
        ["https://[::1/x", /IPv6 host must be closed with "\]"/],
        ["https://[2606:4700::1111", /IPv6 host must be closed with "\]"/],
        ["https://[zz::1]/x", /\[zz::1\] is not an IPv6 address/],
        ["https://[1::2::3]/x", /\[1::2::3\] is not an IPv6 address/],
        ["https://[fe80::1%25eth0]/x", /is not an IPv6 address/],
        ["https://[example.com]/x", /\[example\.com\] is not an IPv6 address/],
        ["https://[::1]x", /after the IPv6 host \[::1\] only an optional :port/],
        ["https://[::1]:port/x", /after the IPv6 host \[::1\] only an optional :port/]
      ]
      for (const [url, says] of cases) {
        const message = problem(url)
        assert.isDefined(message, `${url} was accepted`)
        assert.match(message!, says, url)
        assert.match(message!, /https:\/\/\[2606:4700::1111\]\/hook|:port/, "it shows the expected form")
        assert.notMatch(message!, /absolute http or https URL/, url)
        assert.isFalse(whatwgAccepts(url), `the URL parser refuses ${url} too`)
      }
    })

    it("brackets are only a whole host: inside a name, or after credentials, the URL stays refused", () => {
      for (const url of [
        "https://a[b]/x",
        "https://hooks[::1]/x",
        "https://user@[::1]/x",
        "https://[::1]@evil.example/"
      ]) {
        assert.isDefined(problem(url), `${url} was accepted`)
      }
    })
  })

  it("the create response carries webhook_signing_key exactly once: only in the 201 body", () => {
    const created = toAlertRuleCreated(record)
    assert.strictEqual(created.webhook_signing_key, record.signing_key)
    assert.isTrue(Schema.is(AlertRuleCreated)(created))
    assert.include(Object.keys(AlertRuleCreated.fields), "webhook_signing_key")
    assert.notInclude(Object.keys(AlertRule.fields), "webhook_signing_key")
    const listed = Schema.encodeSync(AlertRule)(toAlertRule(record))
    assert.notProperty(listed, "webhook_signing_key")
    assert.notProperty(listed, "signing_key")
    assert.notProperty(listed, "account_id", "the owning account is not served")
  })

  it("rule matching: every non-empty filter must admit the event; empty means all", () => {
    const all = { entity_types: [], slugs: [], events: [] }
    assert.isTrue(matches(all, event("rating.changed", "bridge", "wormhole")))
    const rule = {
      entity_types: ["protocol", "vault"] as const,
      slugs: ["aave-v4"],
      events: ["rating.grade_transition"] as const
    }
    assert.isTrue(matches(rule, event("rating.grade_transition", "protocol", "aave-v4")))
    assert.isFalse(matches(rule, event("rating.changed", "protocol", "aave-v4")), "event kind filtered")
    assert.isFalse(
      matches(rule, event("rating.grade_transition", "chain", "aave-v4")),
      "entity type filtered"
    )
    assert.isFalse(matches(rule, event("rating.grade_transition", "protocol", "compound")), "slug filtered")
  })

  it("rule matching agrees with the filters on any rule and event", () => {
    const slug = fc.constantFrom("aave-v4", "compound", "wormhole")
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom(...EntityTypes)),
        fc.uniqueArray(slug),
        fc.uniqueArray(fc.constantFrom(...AlertEventKinds)),
        fc.constantFrom(...AlertEventKinds),
        fc.constantFrom(...EntityTypes),
        slug,
        (entity_types, slugs, events, kind, type, s) => {
          const expected =
            (entity_types.length === 0 || entity_types.includes(type)) &&
            (slugs.length === 0 || slugs.includes(s)) &&
            (events.length === 0 || events.includes(kind))
          assert.strictEqual(matches({ entity_types, slugs, events }, event(kind, type, s)), expected)
        }
      )
    )
  })

  it("webhook.test is never matched: it is sent to one rule on request", () => {
    assert.isFalse(
      matches({ entity_types: [], slugs: [], events: [] }, event("webhook.test", "protocol", "x"))
    )
  })
})
