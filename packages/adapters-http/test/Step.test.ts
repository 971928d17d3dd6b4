/**
 * Steps (server/admission/Step.ts): a value decided at once stays a plain
 * value through map, flatMap and all (no effect is made or run), an effect
 * is carried as one and run only when asked, and the Node runner calls back
 * at once for a plain step and once the effect ends otherwise.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Context, Deferred, Effect } from "effect"
import * as Step from "../src/server/admission/Step.ts"

describe("steps: a value known at once, or an effect", () => {
  it("a plain value stays plain through map, flatMap and all: nothing to run", () => {
    const doubled = Step.map(21, (n) => n * 2)
    assert.strictEqual(doubled, 42)
    const chained = Step.flatMap(doubled, (n) => Step.map(n + 1, String))
    assert.strictEqual(chained, "43")
    assert.isTrue(Step.isPlain(chained))
    assert.deepStrictEqual(Step.all([1, 2, 3]), [1, 2, 3])
  })

  it.effect("an effect stays an effect and is run only when asked; what follows it runs after it", () =>
    Effect.gen(function* () {
      const ran: Array<string> = []
      const waiting = Effect.sync(() => {
        ran.push("effect")
        return 1
      })
      const step = Step.flatMap(
        Step.map(waiting, (n) => n + 1),
        (n) => {
          ran.push("then")
          return n * 10
        }
      )
      assert.isFalse(Step.isPlain(step))
      assert.deepStrictEqual(ran, [], "nothing ran while the step was made")
      assert.strictEqual(yield* Step.toEffect(step), 20)
      assert.deepStrictEqual(ran, ["effect", "then"])
    })
  )

  it.effect("a flatMap from a plain value to an effect is that effect", () =>
    Effect.gen(function* () {
      const step = Step.flatMap(2, (n) => Effect.succeed(n + 3))
      assert.isFalse(Step.isPlain(step))
      assert.strictEqual(yield* Step.toEffect(step), 5)
      assert.strictEqual(yield* Step.toEffect(7), 7, "a plain step as an effect succeeds with it")
    })
  )

  it.effect("all: plain when every step is, else every value in order once the effects have run", () =>
    Effect.gen(function* () {
      const mixed = Step.all([1, Effect.succeed(2), 3])
      assert.isFalse(Step.isPlain(mixed))
      assert.deepStrictEqual(yield* Step.toEffect(mixed), [1, 2, 3])
    })
  )

  it.effect("suspend makes the step each time the effect runs", () =>
    Effect.gen(function* () {
      let made = 0
      const effect = Step.suspend(() => ++made)
      assert.strictEqual(made, 0)
      assert.deepStrictEqual(yield* Effect.all([effect, effect]), [1, 2])
    })
  )

  it("the runner calls back at once, before it returns, for a plain step", () => {
    const seen: Array<number> = []
    Step.run(
      5,
      Context.empty(),
      (n) => seen.push(n),
      () => assert.fail("no failure")
    )
    assert.deepStrictEqual(seen, [5])
  })

  it.effect("the runner runs an effect with the context given and calls back as it ends", () =>
    Effect.gen(function* () {
      class Greeting extends Context.Service<Greeting, string>()("test/Greeting") {}
      const context = Context.make(Greeting, "hello") as Context.Context<never>
      const done = yield* Deferred.make<string>()
      Step.run(
        Effect.service(Greeting) as Effect.Effect<string>,
        context,
        (value) => Deferred.doneUnsafe(done, Effect.succeed(value)),
        () => Deferred.doneUnsafe(done, Effect.succeed("failed"))
      )
      assert.strictEqual(yield* Deferred.await(done), "hello")
    })
  )

  it.effect("the runner reports a defect to `failed`, never to `done`", () =>
    Effect.gen(function* () {
      const failed = yield* Deferred.make<boolean>()
      Step.run(
        Effect.die("boom") as Effect.Effect<number>,
        Context.empty(),
        () => Deferred.doneUnsafe(failed, Effect.succeed(false)),
        (cause) => Deferred.doneUnsafe(failed, Effect.succeed(Cause.hasDies(cause)))
      )
      assert.isTrue(yield* Deferred.await(failed))
    })
  )
})
