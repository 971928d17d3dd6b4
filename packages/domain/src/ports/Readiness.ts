/**
 * Port: whether the stores can answer now, for the readiness route (`/ready`):
 * a load balancer sends traffic to a process only while its database answers.
 * The default is always ready (in-memory stores cannot be unreachable); the
 * Postgres stores provide a probe that runs `SELECT 1`.
 */
import { Context, Effect } from "effect"
import type { StoreError } from "./StoreError.ts"

export interface ReadinessProbe {
  /** Succeeds when the database answers a trivial query; the caller bounds it with a timeout. */
  readonly check: Effect.Effect<void, StoreError>
}

export const Readiness = Context.Reference<ReadinessProbe>("@ratings/domain/ports/Readiness", {
  defaultValue: () => ({ check: Effect.void })
})
