/**
 * Endpoint health, recorded beside delivery: each attempt that bears on an
 * endpoint's health (a failure, or a delivery ending a failing run) is
 * queued, and one writer at a time sums up what queued (`observe`) and
 * applies it in one call. Attempts never wait for it, and a failure to
 * record health is logged, never a failed delivery: it is only a count.
 */
import { Cause, Effect, FiberSet } from "effect"
import type { AlertRuleRepository } from "../../ports/AlertRuleRepository.ts"
import { type AttemptSeen, disabledReason, observe } from "../../webhooks/EndpointHealth.ts"

/** The recorder of a dispatcher: queues an attempt's bearing on health and returns at once. */
export const makeHealthBatch = (rules: AlertRuleRepository["Service"], disableAfterMs: number) =>
  Effect.gen(function* () {
    const writers = yield* FiberSet.make<void>()
    const queued: Array<AttemptSeen> = []
    let writing = false
    const reason = disabledReason(disableAfterMs)

    const writeOnce = Effect.suspend(() =>
      rules.recordHealth(observe(queued.splice(0)), disableAfterMs, reason).pipe(
        Effect.flatMap((disabled) =>
          Effect.forEach(disabled, (rule_id) =>
            Effect.logWarning("webhook endpoint disabled: every attempt failed for the set period").pipe(
              Effect.annotateLogs({ rule_id })
            )
          )
        ),
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause)
            ? Effect.interrupt
            : Effect.logError("webhook endpoint health not recorded", cause)
        )
      )
    )

    const writeQueued: Effect.Effect<void> = Effect.gen(function* () {
      while (queued.length > 0) yield* writeOnce
    }).pipe(Effect.ensuring(Effect.sync(() => (writing = false))))

    return (seen: AttemptSeen): Effect.Effect<void> =>
      Effect.suspend(() => {
        queued.push(seen)
        if (writing) return Effect.void
        writing = true
        return Effect.asVoid(FiberSet.run(writers, writeQueued))
      })
  })
