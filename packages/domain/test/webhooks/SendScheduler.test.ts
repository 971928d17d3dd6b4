import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { destinationHost, SendScheduler } from "../../src/webhooks/SendScheduler.ts"

/** One step of a random schedule: offer an item to a host, start the next, or end a send in flight. */
type Step =
  | { readonly op: "offer"; readonly host: number }
  | { readonly op: "next" }
  | { readonly op: "done"; readonly pick: number }

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant("offer" as const), host: fc.integer({ min: 0, max: 4 }) }),
  fc.record({ op: fc.constant("next" as const) }),
  fc.record({ op: fc.constant("done" as const), pick: fc.nat() })
)

describe("SendScheduler", () => {
  it(
    "never exceeds its slots or a host's bound, starts something whenever a slot is free and a waiting " +
      "item's host has room, keeps each host's order, and counts what is startable",
    () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 6 }),
          fc.integer({ min: 1, max: 4 }),
          fc.array(step, { maxLength: 200 }),
          (slots, perHost, steps) => {
            const s = new SendScheduler<{ readonly host: string; readonly n: number }>(slots, perHost)
            const waiting = new Map<string, Array<number>>()
            const inFlight = new Map<string, number>()
            const started: Array<string> = []
            let n = 0
            for (const st of steps) {
              if (st.op === "offer") {
                const host = `h${st.host}`
                s.offer(host, { host, n })
                waiting.set(host, [...(waiting.get(host) ?? []), n++])
              } else if (st.op === "next") {
                const got = s.next()
                if (got === undefined) {
                  const free = [...waiting].filter(
                    ([h, w]) => w.length > 0 && (inFlight.get(h) ?? 0) < perHost
                  )
                  assert.isTrue(s.inFlight === slots || free.length === 0, "idle slot with startable work")
                  continue
                }
                assert.strictEqual(got.item.host, got.host)
                assert.strictEqual(
                  got.item.n,
                  waiting.get(got.host)!.shift(),
                  "a host's items start in order"
                )
                inFlight.set(got.host, (inFlight.get(got.host) ?? 0) + 1)
                started.push(got.host)
              } else if (started.length > 0) {
                const [host] = started.splice(st.pick % started.length, 1)
                s.done(host!)
                inFlight.set(host!, inFlight.get(host!)! - 1)
              }
              let startable = 0
              let waitingTotal = 0
              for (const [h, w] of waiting) {
                waitingTotal += w.length
                startable += Math.max(0, Math.min(w.length, perHost - (inFlight.get(h) ?? 0)))
              }
              for (const [h, f] of inFlight) {
                assert.isAtMost(f, perHost)
                assert.strictEqual(s.inFlightTo(h), f)
              }
              assert.isAtMost(s.inFlight, slots)
              assert.strictEqual(s.inFlight, started.length)
              assert.strictEqual(s.waiting, waitingTotal)
              assert.strictEqual(s.startable, startable)
            }
          }
        )
      )
    }
  )

  it("items for a host at its bound wait without a slot: another host's items take the free slots", () => {
    const s = new SendScheduler<string>(4, 2)
    for (let i = 0; i < 10; i++) s.offer("slow", `slow ${i}`)
    for (let i = 0; i < 3; i++) s.offer("fast", `fast ${i}`)
    const first = [s.next(), s.next(), s.next(), s.next()].map((x) => x?.item)
    assert.deepStrictEqual(first, ["slow 0", "fast 0", "slow 1", "fast 1"])
    assert.isUndefined(s.next(), "all four slots taken")
    assert.strictEqual(s.waiting, 9)
    assert.strictEqual(s.startable, 0, "both hosts are at their bound")
    s.done("fast")
    assert.strictEqual(s.startable, 1, "fast 2 could start; the slow host is still at its bound")
    assert.strictEqual(s.next()?.item, "fast 2")
    s.done("fast")
    assert.isUndefined(s.next(), "a slot is free, but the slow host is at its bound")
    s.done("slow")
    assert.strictEqual(s.next()?.item, "slow 2")
  })

  it("drain hands back every waiting item and keeps counting the sends in flight", () => {
    const s = new SendScheduler<number>(2, 2)
    for (let i = 0; i < 5; i++) s.offer(i % 2 === 0 ? "a" : "b", i)
    assert.strictEqual(s.next()?.item, 0)
    assert.deepStrictEqual(s.drain().sort(), [1, 2, 3, 4])
    assert.strictEqual(s.waiting, 0)
    assert.strictEqual(s.startable, 0)
    assert.strictEqual(s.inFlight, 1)
    assert.isUndefined(s.next())
    s.done("a")
    assert.strictEqual(s.inFlight, 0)
  })

  it("bounds must be whole numbers >= 1; ending a send never started is a bug", () => {
    assert.throws(() => new SendScheduler(0, 1), RangeError)
    assert.throws(() => new SendScheduler(1, 1.5), RangeError)
    assert.throws(() => new SendScheduler(1, 1).done("nowhere"))
  })

  it("a destination host is the URL's scheme, host and port; paths and queries do not matter", () => {
    assert.strictEqual(destinationHost("https://Hooks.Example.com/a?b=1"), "https://hooks.example.com")
    assert.strictEqual(destinationHost("https://hooks.example.com:8443/x"), "https://hooks.example.com:8443")
    assert.strictEqual(destinationHost("http://127.0.0.1:9000/slow"), "http://127.0.0.1:9000")
    assert.notStrictEqual(
      destinationHost("http://127.0.0.1:9000/"),
      destinationHost("http://127.0.0.1:9001/")
    )
    assert.strictEqual(destinationHost("not a url"), "not a url")
  })

  it("each scheduler remembers the hosts of its own URLs, bounded, and agrees with destinationHost", () => {
    const a = new SendScheduler<number>(1, 1, 2)
    const b = new SendScheduler<number>(1, 1, 2)
    assert.strictEqual(a.hostOf("https://Hooks.Example.com/a?b=1"), "https://hooks.example.com")
    assert.strictEqual(
      a.hostOf("https://Hooks.Example.com/a?b=1"),
      destinationHost("https://Hooks.Example.com/a?b=1")
    )
    assert.strictEqual(a.hostOf("not a url"), "not a url")
    assert.strictEqual(a.rememberedUrls, 2)
    // Nothing is shared between schedulers: the domain holds no URL memory of its own.
    assert.strictEqual(b.rememberedUrls, 0)
    // Past its bound the memory starts over rather than growing.
    assert.strictEqual(a.hostOf("http://127.0.0.1:9000/slow"), "http://127.0.0.1:9000")
    assert.strictEqual(a.rememberedUrls, 1)
  })
})
