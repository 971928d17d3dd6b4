/**
 * Port: storage of alert rules (spec part 4, /alert-rules).
 *
 * Rules belong to an account; every read and delete a caller can trigger is
 * scoped to the caller's account, and another account's rule is "not found"
 * (not "forbidden"), so rule ids do not leak across accounts. The signing key
 * is stored with the rule and read back only by the dispatcher
 * (`signingKey`, `destination`, `destinations`), never through `list` or `get`.
 *
 * `destinations` reads the destinations of many rules at once: the dispatcher
 * claims deliveries in batches and looks up their rules together, instead of
 * paying a lookup per delivery. A rule it does not return is deleted (or never
 * existed), exactly as `destination` would say "not found".
 *
 * `create` refuses a rule that would give its account more than
 * `maxPerAccount` rules (by default `AlertRuleLimits.rulesPerAccount`); the
 * count and the write are one atomic step, so concurrent creates of one
 * account cannot pass the bound together.
 *
 * Production: adapters-sql. `layerMemory` keeps rules in a Ref, listed in
 * creation order.
 */
import { Context, Effect, Layer, Ref } from "effect"
import {
  type AlertRule,
  AlertRuleLimitReached,
  AlertRuleLimits,
  AlertRuleNotFound,
  type AlertRuleRecord,
  type MatchableEvent,
  matches,
  toAlertRule
} from "../model/AlertRule.ts"

/** Where a rule's deliveries go and how they are signed: what the dispatcher reads per attempt. */
export interface RuleDestination {
  readonly webhook_url: string
  readonly signing_key: string
}

export class AlertRuleRepository extends Context.Service<
  AlertRuleRepository,
  {
    /** The account's rules, oldest first. */
    readonly list: (accountId: string) => Effect.Effect<ReadonlyArray<AlertRule>>
    /** One of the account's rules. */
    readonly get: (accountId: string, ruleId: string) => Effect.Effect<AlertRule, AlertRuleNotFound>
    /**
     * Stores a new rule with its signing key; the id is the caller's (a fresh
     * UUID). `AlertRuleLimitReached` when the account already has
     * `maxPerAccount` rules (default `AlertRuleLimits.rulesPerAccount`).
     */
    readonly create: (
      record: AlertRuleRecord,
      maxPerAccount?: number
    ) => Effect.Effect<AlertRule, AlertRuleLimitReached>
    /** Deletes one of the account's rules; another account's rule is not found. */
    readonly delete: (accountId: string, ruleId: string) => Effect.Effect<void, AlertRuleNotFound>
    /** Every rule, of any account, whose filters admit the event. */
    readonly matching: (event: MatchableEvent) => Effect.Effect<ReadonlyArray<AlertRule>>
    /** The signing key of a rule, for signing its deliveries. */
    readonly signingKey: (ruleId: string) => Effect.Effect<string, AlertRuleNotFound>
    /**
     * The URL and signing key of a rule, by rule id alone: a delivery knows its
     * rule, not the rule's account. Not found once the rule is deleted.
     */
    readonly destination: (ruleId: string) => Effect.Effect<RuleDestination, AlertRuleNotFound>
    /**
     * `destination` for many rules at once: the map holds each given id whose
     * rule exists, under the id as given; a deleted or unknown rule is absent.
     */
    readonly destinations: (
      ruleIds: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlyMap<string, RuleDestination>>
  }
>()("@ratings/domain/ports/AlertRuleRepository") {
  static readonly layerMemory: Layer.Layer<AlertRuleRepository> = Layer.effect(
    AlertRuleRepository,
    Effect.gen(function* () {
      const rules = yield* Ref.make<ReadonlyArray<AlertRuleRecord>>([])
      const find = (ruleId: string, accountId?: string) =>
        Effect.flatMap(Ref.get(rules), (all) => {
          const found = all.find(
            (r) => r.id === ruleId && (accountId === undefined || r.account_id === accountId)
          )
          return found === undefined
            ? Effect.fail(new AlertRuleNotFound({ rule_id: ruleId }))
            : Effect.succeed(found)
        })
      const destinationOf = (r: AlertRuleRecord): RuleDestination => ({
        webhook_url: r.channels.webhook_url,
        signing_key: r.signing_key
      })
      return AlertRuleRepository.of({
        list: (accountId) =>
          Effect.map(Ref.get(rules), (all) => all.filter((r) => r.account_id === accountId).map(toAlertRule)),
        get: (accountId, ruleId) => Effect.map(find(ruleId, accountId), toAlertRule),
        create: (record, maxPerAccount = AlertRuleLimits.rulesPerAccount) =>
          Effect.flatMap(
            Ref.modify(
              rules,
              (all): readonly ["stored" | "duplicate" | "full", ReadonlyArray<AlertRuleRecord>] => {
                if (all.some((r) => r.id === record.id)) return ["duplicate", all]
                if (all.filter((r) => r.account_id === record.account_id).length >= maxPerAccount)
                  return ["full", all]
                return ["stored", [...all, record]]
              }
            ),
            // A duplicate id is a bug in the caller (ids are fresh UUIDs), hence a defect.
            (outcome) =>
              outcome === "stored"
                ? Effect.succeed(toAlertRule(record))
                : outcome === "full"
                  ? Effect.fail(AlertRuleLimitReached.of(maxPerAccount))
                  : Effect.die(new Error(`alert rule ${record.id} exists`))
          ),
        delete: (accountId, ruleId) =>
          Effect.flatMap(find(ruleId, accountId), () =>
            Ref.update(rules, (all) => all.filter((r) => r.id !== ruleId))
          ),
        matching: (event) =>
          Effect.map(Ref.get(rules), (all) => all.filter((r) => matches(r, event)).map(toAlertRule)),
        signingKey: (ruleId) => Effect.map(find(ruleId), (r) => r.signing_key),
        destination: (ruleId) => Effect.map(find(ruleId), destinationOf),
        destinations: (ruleIds) =>
          Effect.map(Ref.get(rules), (all) => {
            const found = new Map<string, RuleDestination>()
            for (const id of ruleIds) {
              const r = all.find((rule) => rule.id === id)
              if (r !== undefined) found.set(id, destinationOf(r))
            }
            return found
          })
      })
    })
  )
}
