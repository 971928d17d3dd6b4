/**
 * The failure of a store behind a port (a database down, a constraint the
 * adapter could not map). Use cases pass it through; the HTTP layer answers 503.
 */
import { Schema } from "effect"

export class StoreError extends Schema.TaggedError<StoreError>()("StoreError", {
  message: Schema.String
}) {}

/** One page of a list and the count of every match under the same filter. */
export interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly total: number
}
