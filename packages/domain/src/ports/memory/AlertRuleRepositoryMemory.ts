/** The in-memory `AlertRuleRepository` of tests and tools; the contract is the port's (`../AlertRuleRepository.ts`). */
import { Effect, Layer, Ref } from "effect"
import {
  AlertRuleLimitReached,
  AlertRuleLimits,
  AlertRuleNotFound,
  type AlertRuleRecord,
  matches,
  toAlertRule
} from "../../model/AlertRule.ts"
import { AlertRuleRepository, type RuleDestination } from "../AlertRuleRepository.ts"

const layer: Layer.Layer<AlertRuleRepository> = Layer.effect(
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

export const AlertRuleRepositoryMemory = { layer }
