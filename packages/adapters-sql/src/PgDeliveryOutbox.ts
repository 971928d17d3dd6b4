/**
 * The DeliveryOutbox port on Postgres: the durable queue behind signed
 * webhooks, shared by every server process. Stores store: every transition is
 * computed by the domain (webhooks/DeliveryTransitions), exactly as in
 * memory, and handed to this adapter as a guarded write. By concern:
 * PgDeliveryOutbox/Claims (leases, `FOR UPDATE SKIP LOCKED`, and claims
 * handed back), Writes (enqueueing and the guarded writes), Operations
 * (hold, bulk re-fire, retention), Reads
 * (deliveries with their attempt logs) and Rows (the rows, decoded with
 * schemas built from the domain's). A database failure is a defect carrying a
 * StoreError with the reason, never a bare SqlError.
 */
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { Delivery } from "@ratings/domain/model/Delivery"
import { type AttemptToRecord, DeliveryOutbox } from "@ratings/domain/ports/DeliveryOutbox"
import type { AttemptInput } from "@ratings/domain/webhooks/DeliveryStateMachine"
import {
  recordAttempts,
  refireStored,
  type TransitionStore
} from "@ratings/domain/webhooks/DeliveryTransitions"
import { RetryPolicy } from "@ratings/domain/webhooks/RetrySchedule"
import { makeClaims } from "./PgDeliveryOutbox/Claims.ts"
import { makeOperations } from "./PgDeliveryOutbox/Operations.ts"
import { makeReads } from "./PgDeliveryOutbox/Reads.ts"
import { makeWrites } from "./PgDeliveryOutbox/Writes.ts"

/** The outbox on Postgres, on the `RetryPolicy` in context (the spec's schedule unless one is provided). */
export const layer: Layer.Layer<DeliveryOutbox, never, SqlClient.SqlClient> = Layer.effect(
  DeliveryOutbox,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const policy = yield* RetryPolicy
    const reads = makeReads(sql)
    const writes = makeWrites(sql)
    const { claimDue, releaseClaims } = makeClaims(sql)
    const store: TransitionStore = { read: reads.read, writeGuarded: writes.writeGuarded }

    const recordAll = (attempts: ReadonlyArray<AttemptToRecord>) =>
      recordAttempts(store, policy, attempts).pipe(Effect.withSpan("PgDeliveryOutbox.recordAttempts"))

    const recordAttempt = (claimed: Delivery, input: AttemptInput) =>
      Effect.flatMap(recordAll([{ claimed, input }]), ([result]) => Effect.fromResult(result!)).pipe(
        Effect.withSpan("PgDeliveryOutbox.recordAttempt")
      )

    const refire = (deliveryId: string, at: number) =>
      Effect.flatMap(refireStored(store, deliveryId, at), Effect.fromResult).pipe(
        Effect.withSpan("PgDeliveryOutbox.refire")
      )

    return DeliveryOutbox.of({
      enqueue: writes.enqueue,
      enqueueClaimed: writes.enqueueClaimed,
      claimDue,
      releaseClaims,
      recordAttempt,
      recordAttempts: recordAll,
      get: reads.get,
      listByRule: reads.listByRule,
      listFailed: reads.listFailed,
      refire,
      ...makeOperations(sql, store)
    })
  })
)
