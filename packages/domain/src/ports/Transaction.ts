/**
 * Port: a unit of work. Effects run inside `run` commit together or not at all
 * (publishing a scorecard writes the scorecard, the history entry and the
 * webhook outbox rows in one transaction). The SQL adapter maps it to a database
 * transaction. In memory there is no rollback: the in-memory stores apply each
 write as it runs, so use cases validate everything before their first write.
 */
import { Context, type Effect } from "effect"
import type { StoreError } from "./StoreError.ts"

export class Transaction extends Context.Service<
  Transaction,
  {
    readonly run: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StoreError, R>
  }
>()("@ratings/domain/ports/Transaction") {}
