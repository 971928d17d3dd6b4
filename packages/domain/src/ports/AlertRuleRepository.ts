/**
 * Port: storage of alert rules (spec part 4, /alert-rules). Every read and
 * delete a caller can trigger is scoped to the caller's account, and another
 * account's rule is "not found" (not "forbidden"), so rule ids do not leak
 * across accounts. The signing keys are read back only by the dispatcher
 * (`signingKey`, `destination`, `destinations`), never through `list` or `get`;
 * the rule's endpoint health and key rotation are kept here too.
 *
 * Production: adapters-sql. `AlertRuleRepositoryMemory.layer`
 * (memory/AlertRuleRepositoryMemory.ts) keeps rules in a Ref, listed in
 * creation order.
 */
import { Context, type Effect } from "effect"
import type {
  AlertRule,
  AlertRuleHealth,
  AlertRuleLimitReached,
  AlertRuleNotFound,
  AlertRuleRecord,
  MatchableEvent
} from "../model/AlertRule.ts"
import type { EndpointObservation } from "../webhooks/EndpointHealth.ts"

/** Where a rule's deliveries go and how they are signed: what the dispatcher reads per attempt. */
export interface RuleDestination {
  readonly webhook_url: string
  readonly signing_key: string
  /** The key the latest rotation replaced, while its overlap runs; deliveries are signed by both. */
  readonly previous_signing_key: string | null
  /** The endpoint is disabled: its deliveries are recorded, not sent. */
  readonly disabled: boolean
  /** A run of failed attempts is going on: a delivered attempt must end it. */
  readonly failing: boolean
}

/** The rules a rotation changed: the rule, and until when the replaced key still signs (null: destroyed now). */
export interface KeyRotated {
  readonly rule: AlertRule
  readonly previous_key_expires_at: string | null
}

/** An enable: the rule as it is now, and its health just before (when and why it was disabled). */
export interface RuleEnabled {
  readonly rule: AlertRule
  readonly before: AlertRuleHealth
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
    /** `matching` of many events in one read: the rules of each event, in the events' order. */
    readonly matchingEach: (
      events: ReadonlyArray<MatchableEvent>
    ) => Effect.Effect<ReadonlyArray<ReadonlyArray<AlertRule>>>
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
    /**
     * Applies what a batch of attempts showed of their endpoints (see
     * webhooks/EndpointHealth: a delivered attempt ends a failing run, a
     * failed one starts or extends it, and a run as long as `disableAfterMs`
     * disables the endpoint with `reason`). Returns the ids of the rules it
     * disabled. A deleted rule is skipped.
     */
    readonly recordHealth: (
      observations: ReadonlyArray<EndpointObservation>,
      disableAfterMs: number,
      reason: string
    ) => Effect.Effect<ReadonlyArray<string>>
    /**
     * Enables a rule's endpoint again (healthy, no failing run); the account's
     * rule, or any rule when no account is given (an operator).
     */
    readonly enable: (
      accountId: string | undefined,
      ruleId: string
    ) => Effect.Effect<RuleEnabled, AlertRuleNotFound>
    /**
     * Replaces the account's rule's signing key by `newKey`; the replaced key
     * keeps signing until `previousUntil` (epoch ms), or is destroyed now when
     * it is null. A key that an earlier rotation kept is destroyed either way.
     */
    readonly rotateKey: (
      accountId: string,
      ruleId: string,
      newKey: string,
      previousUntil: number | null
    ) => Effect.Effect<KeyRotated, AlertRuleNotFound>
    /** Removes from storage every replaced key whose overlap ended at or before `at`; how many. */
    readonly destroyExpiredKeys: (at: number) => Effect.Effect<number>
  }
>()("@ratings/domain/ports/AlertRuleRepository") {}
