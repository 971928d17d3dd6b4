/** The in-memory `AlertRuleRepository` of tests and tools; the contract is the port's (`../AlertRuleRepository.ts`). */
import { Clock, Effect, Layer, Ref } from "effect"
import {
  type AlertRuleHealth,
  AlertRuleLimitReached,
  AlertRuleLimits,
  AlertRuleNotFound,
  type AlertRuleRecord,
  HealthyEndpoint,
  matches,
  toAlertRule
} from "../../model/AlertRule.ts"
import { isoOf } from "../../model/Delivery.ts"
import { nextHealth } from "../../webhooks/EndpointHealth.ts"
import { AlertRuleRepository, type RuleDestination } from "../AlertRuleRepository.ts"

/** A stored rule: as created, its endpoint's health, and the key a rotation replaced while it still signs. */
interface Stored {
  readonly record: AlertRuleRecord
  readonly health: AlertRuleHealth
  readonly previous: { readonly key: string; readonly until: number } | null
}

const served = (s: Stored) => toAlertRule(s.record, s.health)

const destinationOf = (s: Stored): RuleDestination => ({
  webhook_url: s.record.channels.webhook_url,
  signing_key: s.record.signing_key,
  previous_signing_key: s.previous?.key ?? null,
  disabled: s.health.disabled,
  failing: s.health.failing_since !== null
})

const createIn =
  (record: AlertRuleRecord, maxPerAccount: number) =>
  (all: ReadonlyArray<Stored>): readonly ["stored" | "duplicate" | "full", ReadonlyArray<Stored>] => {
    if (all.some((s) => s.record.id === record.id)) return ["duplicate", all]
    if (all.filter((s) => s.record.account_id === record.account_id).length >= maxPerAccount)
      return ["full", all]
    return ["stored", [...all, { record, health: HealthyEndpoint, previous: null }]]
  }

type Rules = Ref.Ref<ReadonlyArray<Stored>>
type Find = (ruleId: string, accountId?: string) => Effect.Effect<Stored, AlertRuleNotFound>
type Replace = (ruleId: string, change: (s: Stored) => Stored) => Effect.Effect<void>
type Live = (at: number) => (s: Stored) => Stored

/** Endpoint health and key rotation, over the rules in the Ref. */
const operations = (
  rules: Rules,
  find: Find,
  replace: Replace,
  live: Live
): Pick<AlertRuleRepository["Service"], "recordHealth" | "enable" | "rotateKey" | "destroyExpiredKeys"> => ({
  recordHealth: (observations, disableAfterMs, reason) =>
    Ref.modify(rules, (all) => {
      const disabled: Array<string> = []
      let next = all
      for (const o of observations) {
        next = next.map((s) => {
          if (s.record.id !== o.rule_id) return s
          const health = nextHealth(s.health, o, disableAfterMs, reason)
          if (health.disabled && !s.health.disabled) disabled.push(s.record.id)
          return { ...s, health }
        })
      }
      return [disabled, next] as const
    }),
  enable: (accountId, ruleId) =>
    Effect.gen(function* () {
      const before = yield* find(ruleId, accountId)
      yield* replace(ruleId, (s) => ({ ...s, health: HealthyEndpoint }))
      return { rule: toAlertRule(before.record), before: before.health }
    }),
  rotateKey: (accountId, ruleId, newKey, previousUntil) =>
    Effect.gen(function* () {
      const before = yield* find(ruleId, accountId)
      const previous =
        previousUntil === null ? null : { key: before.record.signing_key, until: previousUntil }
      yield* replace(ruleId, (s) => ({ ...s, record: { ...s.record, signing_key: newKey }, previous }))
      return {
        rule: served(before),
        previous_key_expires_at: previousUntil === null ? null : isoOf(previousUntil)
      }
    }),
  destroyExpiredKeys: (at) =>
    Ref.modify(rules, (all) => {
      const expired = all.filter((s) => s.previous !== null && s.previous.until <= at).length
      return [expired, all.map(live(at))] as const
    })
})

const layer: Layer.Layer<AlertRuleRepository> = Layer.effect(
  AlertRuleRepository,
  Effect.gen(function* () {
    const rules = yield* Ref.make<ReadonlyArray<Stored>>([])
    const find = (ruleId: string, accountId?: string) =>
      Effect.flatMap(Ref.get(rules), (all) => {
        const found = all.find(
          (s) => s.record.id === ruleId && (accountId === undefined || s.record.account_id === accountId)
        )
        return found === undefined
          ? Effect.fail(new AlertRuleNotFound({ rule_id: ruleId }))
          : Effect.succeed(found)
      })
    const replace = (ruleId: string, change: (s: Stored) => Stored) =>
      Ref.update(rules, (all) => all.map((s) => (s.record.id === ruleId ? change(s) : s)))
    // A replaced key past its overlap signs nothing, swept or not.
    const live = (at: number) => (s: Stored) =>
      s.previous !== null && s.previous.until <= at ? { ...s, previous: null } : s
    const current = Effect.map(Clock.currentTimeMillis, live)

    return AlertRuleRepository.of({
      list: (accountId) =>
        Effect.map(Ref.get(rules), (all) => all.filter((s) => s.record.account_id === accountId).map(served)),
      get: (accountId, ruleId) => Effect.map(find(ruleId, accountId), served),
      create: (record, maxPerAccount = AlertRuleLimits.rulesPerAccount) =>
        Effect.flatMap(Ref.modify(rules, createIn(record, maxPerAccount)), (outcome) =>
          // A duplicate id is a bug in the caller (ids are fresh UUIDs), hence a defect.
          outcome === "stored"
            ? Effect.succeed(toAlertRule(record))
            : outcome === "full"
              ? Effect.fail(AlertRuleLimitReached.of(maxPerAccount))
              : Effect.die(new Error(`alert rule ${record.id} exists`))
        ),
      delete: (accountId, ruleId) =>
        Effect.flatMap(find(ruleId, accountId), () =>
          Ref.update(rules, (all) => all.filter((s) => s.record.id !== ruleId))
        ),
      matching: (event) =>
        Effect.map(Ref.get(rules), (all) => all.filter((s) => matches(s.record, event)).map(served)),
      matchingEach: (events) =>
        Effect.map(Ref.get(rules), (all) =>
          events.map((event) => all.filter((s) => matches(s.record, event)).map(served))
        ),
      signingKey: (ruleId) => Effect.map(find(ruleId), (s) => s.record.signing_key),
      destination: (ruleId) =>
        Effect.flatMap(find(ruleId), (s) => Effect.map(current, (at) => destinationOf(at(s)))),
      destinations: (ruleIds) =>
        Effect.gen(function* () {
          const all = yield* Ref.get(rules)
          const at = yield* current
          const found = new Map<string, RuleDestination>()
          for (const id of ruleIds) {
            const s = all.find((rule) => rule.record.id === id)
            if (s !== undefined) found.set(id, destinationOf(at(s)))
          }
          return found
        }),
      ...operations(rules, find, replace, live)
    })
  })
)

export const AlertRuleRepositoryMemory = { layer }
