/**
 * The use cases of operating a rule's webhook, behind AlertRuleService:
 * enabling a disabled endpoint (optionally re-firing what failed or was held
 * while it was down), rotating the signing key with an overlap, and bulk re-fire
 * of a rule's or an account's failed deliveries since a time, bounded per
 * call. An account when an account asks (the API), none for an operator (the
 * CLI); another account's rule is "not found", as everywhere.
 */
import { Clock, Effect } from "effect"
import { millisOf } from "../model/Delivery.ts"
import { RefireBatchLimit, type RefireReport, RotationOverlap } from "../model/WebhookOperations.ts"
import type { AlertRuleRepository } from "../ports/AlertRuleRepository.ts"
import type { DeliveryOutbox } from "../ports/DeliveryOutbox.ts"
import type { Signer } from "../ports/Signer.ts"

/** What the operations work with. */
export interface OperationPorts {
  readonly rules: AlertRuleRepository["Service"]
  readonly outbox: DeliveryOutbox["Service"]
  readonly signer: Signer["Service"]
}

/** Which failed deliveries a bulk re-fire takes: one rule's, or every rule's of an account. */
export type RefireScope = { readonly ruleId: string } | { readonly accountId: string }

export interface RefireOptions {
  /** Epoch ms: deliveries failed since then (their last cycle began then or later). */
  readonly since: number
  /** At most this many (capped at `RefireBatchLimit`). */
  readonly limit?: number | undefined
}

/** The rule ids of a scope the caller may act on; a rule another account owns is not found. */
const scopeRules = (ports: OperationPorts, accountId: string | undefined, scope: RefireScope) =>
  Effect.gen(function* () {
    if ("accountId" in scope) {
      if (accountId !== undefined && accountId !== scope.accountId) return []
      return (yield* ports.rules.list(scope.accountId)).map((r) => r.id)
    }
    if (accountId === undefined) yield* ports.rules.destination(scope.ruleId)
    else yield* ports.rules.get(accountId, scope.ruleId)
    return [scope.ruleId]
  })

const refireRules = (ports: OperationPorts, ruleIds: ReadonlyArray<string>, options: RefireOptions) =>
  Effect.gen(function* () {
    const at = yield* Clock.currentTimeMillis
    const limit = Math.min(RefireBatchLimit, Math.max(1, options.limit ?? RefireBatchLimit))
    const { refired, more } = yield* ports.outbox.refireFailed({ ruleIds, since: options.since, at, limit })
    return {
      refired: refired.length,
      more,
      delivery_ids: refired.map((d) => d.delivery_id)
    } satisfies RefireReport
  })

/** Bulk re-fire: each delivery of the scope failed since the time, a new cycle due now, its delivery_id kept. */
export const refireFailed = (ports: OperationPorts) =>
  Effect.fn("AlertRuleService.refireFailed")(function* (
    accountId: string | undefined,
    scope: RefireScope,
    options: RefireOptions
  ) {
    return yield* refireRules(ports, yield* scopeRules(ports, accountId, scope), options)
  })

/**
 * Enable: the endpoint healthy again. With `refire`, the deliveries that
 * failed since its failing run began (what failed, or was held, while it was
 * down) are re-fired, at most `RefireBatchLimit`; the report says if more remain.
 */
export const enable = (ports: OperationPorts) =>
  Effect.fn("AlertRuleService.enable")(function* (
    accountId: string | undefined,
    ruleId: string,
    options: { readonly refire: boolean }
  ) {
    const { rule, before } = yield* ports.rules.enable(accountId, ruleId)
    // What failed or was held while the endpoint was down: since its failing run began.
    const since = before.disabled ? (before.failing_since ?? before.disabled_at) : null
    const refire =
      options.refire && since !== null
        ? yield* refireRules(ports, [ruleId], { since: millisOf(since) })
        : null
    return {
      rule,
      was_disabled_at: before.disabled_at,
      was_disabled_reason: before.disabled_reason,
      refire: options.refire && refire === null ? { refired: 0, more: false, delivery_ids: [] } : refire
    }
  })

/** Rotation: a new key, served once; the replaced one signs beside it for the overlap, then is destroyed. */
export const rotateSecret = (ports: OperationPorts) =>
  Effect.fn("AlertRuleService.rotateSecret")(function* (
    accountId: string,
    ruleId: string,
    overlapSeconds: number = RotationOverlap.defaultSeconds
  ) {
    if (!(overlapSeconds >= 0 && overlapSeconds <= RotationOverlap.maxSeconds))
      return yield* Effect.die(new RangeError(`overlap ${overlapSeconds} s is out of bounds`))
    const now = yield* Clock.currentTimeMillis
    const key = yield* ports.signer.newSigningKey
    const until = overlapSeconds === 0 ? null : now + overlapSeconds * 1_000
    const { rule, previous_key_expires_at } = yield* ports.rules.rotateKey(accountId, ruleId, key, until)
    return { ...rule, webhook_signing_key: key, previous_key_expires_at }
  })
