/**
 * The front door and the router share state only through explicit values:
 * the request's typed handoff (front/Handoff.ts) and services in the Effect
 * context. No source of the HTTP adapter keeps per-request state in a
 * module-level WeakMap keyed by requests, and none replaces a method of a
 * Node object (the lane once learned headers by replacing `writeHead`, the
 * server intercepted requests by replacing `emit`).
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative } from "node:path"
import { assert, describe, it } from "@effect/vitest"

const Src = join(import.meta.dirname, "..", "src")

const sources = (dir: string = Src): Array<{ readonly path: string; readonly code: string }> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sources(path)
    return name.endsWith(".ts") ? [{ path: relative(Src, path), code: readFileSync(path, "utf8") }] : []
  })

/** A WeakMap whose keys may be requests or responses (any object, or a Node or Effect request type). */
const RequestKeyedWeakMap =
  /new WeakMap<\s*(object|IncomingMessage|ServerResponse|HttpServerRequest[.\w]*)\s*,/

/** An assignment to a method of a Node request, response, socket or server. */
const ReplacedMethod = /\.(writeHead|emit|end|write|setHeader|on|once|addListener|prependListener)\s*=(?!=)/

describe("no hidden channels between the front door and the router", () => {
  it("no module-level WeakMap keyed by requests carries state between the lane and the router", () => {
    const files = sources()
    assert.isAbove(files.length, 40)
    const offenders = files.filter((f) => RequestKeyedWeakMap.test(f.code)).map((f) => f.path)
    assert.deepStrictEqual(offenders, [])
  })

  it("no Node object has a method replaced: the lane and the server compose by listeners and values", () => {
    const offenders = sources()
      .filter((f) => ReplacedMethod.test(f.code))
      .map((f) => `${f.path}: ${ReplacedMethod.exec(f.code)?.[0]}`)
    assert.deepStrictEqual(offenders, [])
  })

  it("the patterns catch what they are for", () => {
    assert.isTrue(RequestKeyedWeakMap.test("export const servedFromCache = new WeakMap<object, Served>()"))
    assert.isTrue(ReplacedMethod.test("response.writeHead = function (status) {"))
    assert.isTrue(ReplacedMethod.test("server.emit = ((event) => true)"))
    assert.isFalse(ReplacedMethod.test("if (response.writeHead === original) {"))
    assert.isFalse(RequestKeyedWeakMap.test("const encoders = new WeakMap<S.Top, Encoder>()"))
  })
})
