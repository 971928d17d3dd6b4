/**
 * A claim of due deliveries, with their destinations read in one lookup. It
 * never fails: a failed claim is logged and yields nothing (the next poll
 * tries again), and deliveries whose rules could not be read are counted as
 * lost; nothing of them is sent, and they return when their leases end.
 *
 * Each claim carries a token of its own, so that claims this dispatcher will
 * not send (its loop stopping) can be handed back (`release`) without
 * touching a claim taken since by anyone else.
 */
import { Cause, Effect, Random } from "effect"
import type { Delivery } from "../../model/Delivery.ts"
import type { HeldClaim } from "../../ports/DeliveryOutbox.ts"
import type { Claimed, DispatcherPorts } from "./Settings.ts"

export interface Claim {
  readonly claimed: ReadonlyArray<Claimed>
  readonly lost: number
  /** The token the claim was taken under (see `release`). */
  readonly token: string
}

/**
 * A source of claim tokens unique across processes: a random 128-bit id of
 * this dispatcher, then a counter.
 */
export const makeClaimTokens = Effect.gen(function* () {
  const words = yield* Effect.forEach([0, 1, 2, 3], () => Random.nextIntBetween(0, 0xffff_ffff))
  const id = words.map((w) => w.toString(16).padStart(8, "0")).join("")
  let claims = 0
  return Effect.sync(() => `${id}:${++claims}`)
})

/** The claimed deliveries with their destinations, or all of them lost when the rules could not be read. */
const withDestinations = (
  ports: DispatcherPorts,
  deliveries: ReadonlyArray<Delivery>,
  token: string
): Effect.Effect<Claim> =>
  ports.rules.destinations([...new Set(deliveries.map((d) => d.rule_id))]).pipe(
    Effect.map((destinations) => ({
      claimed: deliveries.map((delivery) => ({
        delivery,
        destination: destinations.get(delivery.rule_id)
      })),
      lost: 0,
      token
    })),
    Effect.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause)
        ? Effect.interrupt
        : Effect.as(
            Effect.logError(
              "webhook dispatcher could not read the rules of claimed deliveries; they return when their claims expire",
              cause
            ).pipe(Effect.annotateLogs({ deliveries: deliveries.length })),
            { claimed: [], lost: deliveries.length, token }
          )
    )
  )

/** Up to `limit` due deliveries at `at` with their destinations, claimed under `token`, or none if the claim failed. */
export const claim = (
  ports: DispatcherPorts,
  leaseMs: number,
  token: string,
  at: number,
  limit: number
): Effect.Effect<Claim> =>
  ports.outbox.claimDue({ at, limit, leaseMs, token }).pipe(
    Effect.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause)
        ? Effect.interrupt
        : Effect.as(Effect.logError("webhook dispatcher could not claim deliveries", cause), [])
    ),
    Effect.flatMap((deliveries) =>
      deliveries.length === 0
        ? Effect.succeed({ claimed: [], lost: 0, token })
        : withDestinations(ports, deliveries, token)
    )
  )

/**
 * Hands back claims this dispatcher will not send, so that any process may
 * send them at once instead of after their leases. It never fails: claims it
 * could not hand back return when their leases end.
 */
export const release = (ports: DispatcherPorts, claims: ReadonlyArray<HeldClaim>): Effect.Effect<void> =>
  claims.length === 0
    ? Effect.void
    : ports.outbox.releaseClaims(claims).pipe(
        Effect.flatMap((released) =>
          Effect.logInfo("webhook dispatcher handed back deliveries it had claimed but not started").pipe(
            Effect.annotateLogs({ released: released.length, not_released: claims.length - released.length })
          )
        ),
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause)
            ? Effect.interrupt
            : Effect.logError(
                "webhook dispatcher could not hand back deliveries claimed but not started; they return when their claims expire",
                cause
              ).pipe(Effect.annotateLogs({ deliveries: claims.length }))
        )
      )
