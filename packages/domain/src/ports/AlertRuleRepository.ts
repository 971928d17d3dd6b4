/**
 * Port: storage of alert rules (spec part 4, /alert-rules). Every read and
 * delete a caller can trigger is scoped to the caller's account, and another
 * account's rule is "not found" (not "forbidden"), so rule ids do not leak
 * across accounts. The signing key is read back only by the dispatcher
 * (`signingKey`, `destination`, `destinations`), never through `list` or `get`.
 *
 * Production: adapters-sql. `AlertRuleRepositoryMemory.layer`
 * (memory/AlertRuleRepositoryMemory.ts) keeps rules in a Ref, listed in
 * creation order.
 */
import { Context, type Effect } from "effect"
import type {
  AlertRule,
  AlertRuleLimitReached,
  AlertRuleNotFound,
  AlertRuleRecord,
  MatchableEvent
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
     * `maxPerAccount` rules (default `AlertRuleLimits.rulesPerAccount`). The
     * count and the write are one atomic step, so concurrent creates of one
     * account cannot pass the bound together.
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
     * The dispatcher reads the rules of a claimed batch in this one lookup.
     */
    readonly destinations: (
      ruleIds: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlyMap<string, RuleDestination>>
  }
>()("@ratings/domain/ports/AlertRuleRepository") {}
