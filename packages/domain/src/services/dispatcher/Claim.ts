/**
 * A claim of due deliveries, with their destinations read in one lookup. It
 * never fails: a failed claim is logged and yields nothing (the next poll
 * tries again), and deliveries whose rules could not be read are counted as
 * lost; nothing of them is sent, and they return when their leases end.
 */
import { Cause, Effect } from "effect"
import type { Delivery } from "../../model/Delivery.ts"
import type { Claimed, DispatcherPorts } from "./Settings.ts"

export interface Claim {
  readonly claimed: ReadonlyArray<Claimed>
  readonly lost: number
}

/** The claimed deliveries with their destinations, or all of them lost when the rules could not be read. */
const withDestinations = (
  ports: DispatcherPorts,
  deliveries: ReadonlyArray<Delivery>
): Effect.Effect<Claim> =>
  ports.rules.destinations([...new Set(deliveries.map((d) => d.rule_id))]).pipe(
    Effect.map((destinations) => ({
      claimed: deliveries.map((delivery) => ({
        delivery,
        destination: destinations.get(delivery.rule_id)
      })),
      lost: 0
    })),
    Effect.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause)
        ? Effect.interrupt
        : Effect.as(
            Effect.logError(
              "webhook dispatcher could not read the rules of claimed deliveries; they return when their claims expire",
              cause
            ).pipe(Effect.annotateLogs({ deliveries: deliveries.length })),
            { claimed: [], lost: deliveries.length }
          )
    )
  )

/** Up to `limit` due deliveries at `at` with their destinations, or none if the claim failed. */
export const claim = (
  ports: DispatcherPorts,
  leaseMs: number,
  at: number,
  limit: number
): Effect.Effect<Claim> =>
  ports.outbox.claimDue({ at, limit, leaseMs }).pipe(
    Effect.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause)
        ? Effect.interrupt
        : Effect.as(Effect.logError("webhook dispatcher could not claim deliveries", cause), [])
    ),
    Effect.flatMap((deliveries) =>
      deliveries.length === 0 ? Effect.succeed({ claimed: [], lost: 0 }) : withDestinations(ports, deliveries)
    )
  )
