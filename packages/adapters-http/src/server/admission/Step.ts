/**
 * A value that may be known at once: a plain value when it could be decided
 * synchronously (the memory store's counters, a key held in memory), an
 * Effect when it must wait (Redis, a key lookup, a JWT verification). Code
 * written over Steps is written once for both, and stays synchronous, with
 * no fiber and no effect run, for as long as every step it meets is plain.
 *
 * A Step never fails: what can go wrong is part of its value. Its value is
 * never itself an Effect.
 */
import { type Cause, type Context, Effect } from "effect"

export type Step<A> = A | Effect.Effect<A>

/** Whether the step is decided already (its value), rather than an effect to run. */
export const isPlain = <A>(step: Step<A>): step is A => !Effect.isEffect(step)

/** The step as an effect (a plain value succeeds at once). */
export const toEffect = <A>(step: Step<A>): Effect.Effect<A> => (isPlain(step) ? Effect.succeed(step) : step)

/** An effect that makes the step each time it runs (a plain step's work is done when it is made). */
export const suspend = <A>(make: () => Step<A>): Effect.Effect<A> => Effect.suspend(() => toEffect(make()))

/** `f` of the step's value: at once when the step is plain. */
export const map = <A, B>(step: Step<A>, f: (a: A) => B): Step<B> =>
  isPlain(step) ? f(step) : Effect.map(step, f)

/** The step `f` makes of the step's value: at once when the step is plain, and then as plain as `f`'s. */
export const flatMap = <A, B>(step: Step<A>, f: (a: A) => Step<B>): Step<B> =>
  isPlain(step) ? f(step) : Effect.flatMap(step, (a) => toEffect(f(a)))

/**
 * Every step's value, in order: at once when each is plain; otherwise the
 * effects run side by side (made beforehand, a plain step's work is done).
 */
export const all = <A>(steps: ReadonlyArray<Step<A>>): Step<ReadonlyArray<A>> =>
  steps.every(isPlain)
    ? (steps as ReadonlyArray<A>)
    : Effect.all(steps.map(toEffect), { concurrency: "unbounded" })

/**
 * For Node callback code: `done` with the step's value, called at once when
 * the step is plain; otherwise the effect is run with `context` and `done`
 * (or `failed`, on a defect or an interruption) is called as it ends.
 */
export const run = <A>(
  step: Step<A>,
  context: Context.Context<never>,
  done: (a: A) => void,
  failed: (cause: Cause.Cause<never>) => void
): void => {
  if (isPlain(step)) {
    done(step)
    return
  }
  Effect.runForkWith(context)(step).addObserver((exit) => {
    if (exit._tag === "Success") done(exit.value)
    else failed(exit.cause)
  })
}
