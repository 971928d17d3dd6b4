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
  toAlertRuleCreated
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
  created_at: "2026-08-01T00:00:00.000Z"
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
