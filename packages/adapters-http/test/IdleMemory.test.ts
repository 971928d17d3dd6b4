/**
 * Memory back to the system once traffic stops (IdleMemory.ts): a server
 * that has served requests and then starts none for the quiet period is
 * collected once, only if its RSS grew, and again only after more traffic.
 * The collection and the RSS are injected here; ServeNodeFlags.test.ts shows
 * the real one on a `ratings serve` process.
 */
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { exposedCollection, releaseMemoryWhenQuiet } from "../src/server/IdleMemory.ts"
import { createServer } from "../src/server/front/NodeServer.ts"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Waits until `done()` holds, or `ms` have passed. */
const until = async (done: () => boolean, ms: number) => {
  const deadline = Date.now() + ms
  while (!done() && Date.now() < deadline) await sleep(10)
}

/** A server answering 204, watched with a fake RSS (`rss.value`) and a counted collection. */
const watched = async (options: { quietMs?: number; growth?: number } = {}) => {
  const server = createServer()
  server.router = {
    request: (_request, response) => response.writeHead(204).end(),
    upgrade: (_request, socket) => socket.destroy()
  }
  await server.listen({ port: 0, host: "127.0.0.1" })
  const url = `http://127.0.0.1:${(server.gate.address() as AddressInfo).port}/`
  const rss = { value: 100 }
  const releases: Array<readonly [number, number]> = []
  let collections = 0
  const stop = releaseMemoryWhenQuiet(server.gate, () => server.requestsStarted, {
    quietMs: options.quietMs ?? 150,
    growth: options.growth ?? 0.25,
    checkEveryMs: 20,
    rss: () => rss.value,
    collect: () => {
      collections++
      // What a collection does: the pooled pages go back.
      rss.value = 110
    },
    onRelease: (before, after) => releases.push([before, after])
  })
  const get = async (n = 1) => {
    for (let i = 0; i < n; i++) await (await fetch(url)).arrayBuffer()
  }
  const close = async () => {
    stop()
    server.http.closeAllConnections()
    await server.close()
  }
  return { server, rss, releases, collections: () => collections, get, close }
}

describe("memory back to the system when the server goes quiet", () => {
  it("a server quiet after serving requests, its RSS grown, is collected once and told what it returned", async () => {
    const s = await watched()
    try {
      await s.get(5)
      s.rss.value = 300
      // The release is told at the check after the collection: on a loaded machine that may be late.
      await until(() => s.releases.length > 0, 3_000)
      assert.strictEqual(s.collections(), 1)
      assert.deepStrictEqual(s.releases, [[300, 110]])
      await sleep(300)
      assert.strictEqual(s.collections(), 1, "once per quiet spell")
    } finally {
      await s.close()
    }
  })

  it("no collection while requests keep coming", async () => {
    const s = await watched({ quietMs: 1_000 })
    try {
      s.rss.value = 300
      const until = Date.now() + 1_500
      while (Date.now() < until) {
        await s.get()
        await sleep(30)
      }
      assert.strictEqual(s.collections(), 0)
      await sleep(1_500)
      assert.strictEqual(s.collections(), 1, "collected once the requests stopped")
    } finally {
      await s.close()
    }
  })

  it("no collection when RSS has not grown by the threshold since start or the last release", async () => {
    const s = await watched({ growth: 0.25 })
    try {
      await s.get(3)
      s.rss.value = 120 // +20 % over the 100 at start
      await sleep(400)
      assert.strictEqual(s.collections(), 0)
    } finally {
      await s.close()
    }
  })

  it("no collection before the server has served anything", async () => {
    const s = await watched()
    try {
      s.rss.value = 500
      await sleep(400)
      assert.strictEqual(s.collections(), 0)
    } finally {
      await s.close()
    }
  })

  it("the next traffic re-arms it, measured from what the last release left", async () => {
    const s = await watched()
    try {
      await s.get(2)
      s.rss.value = 300
      await sleep(400)
      assert.strictEqual(s.collections(), 1)
      await s.get(2)
      s.rss.value = 130 // +18 % over the 110 the release left: not worth one
      await sleep(400)
      assert.strictEqual(s.collections(), 1)
      await s.get(2)
      s.rss.value = 200
      await sleep(400)
      assert.strictEqual(s.collections(), 2)
    } finally {
      await s.close()
    }
  })

  it("stops watching when the server closes", async () => {
    const s = await watched()
    await s.get(2)
    s.rss.value = 300
    await s.close()
    await sleep(400)
    assert.strictEqual(s.collections(), 0)
  })

  it("the collection is V8's memory-reducing one (last-resort flavour, asynchronous), only when Node exposes gc", () => {
    const global = globalThis as { gc?: unknown }
    const had = global.gc
    try {
      delete global.gc
      assert.isUndefined(exposedCollection(), "without --expose-gc there is none")
      const calls: Array<unknown> = []
      global.gc = (options: unknown) => calls.push(options)
      exposedCollection()?.()
      assert.deepStrictEqual(calls, [{ type: "major", execution: "async", flavor: "last-resort" }])
    } finally {
      if (had === undefined) delete global.gc
      else global.gc = had
    }
  })
})
