/**
 * Derived import ids: the domain's own SHA-1 agrees with node:crypto on
 * messages of every padding case, and the version-5 UUIDs agree with RFC
 * 4122's.
 */
import { createHash } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import {
  answerIdOf,
  entityIdOf,
  ImportNamespace,
  scorecardIdOf,
  sha1,
  uuidV5
} from "../../src/import/ImportIds.ts"

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex")

/** RFC 4122 version 5 over node:crypto, to compare with. */
const nodeUuidV5 = (name: string, namespace: string): string => {
  const hash = createHash("sha1")
    .update(Buffer.from(namespace.replaceAll("-", ""), "hex"))
    .update(name, "utf8")
    .digest()
  hash[6] = (hash[6]! & 0x0f) | 0x50
  hash[8] = (hash[8]! & 0x3f) | 0x80
  const h = hash.subarray(0, 16).toString("hex")
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

describe("ImportIds", () => {
  it("sha1 agrees with node:crypto for lengths across the block boundaries", () => {
    for (const n of [0, 1, 3, 55, 56, 63, 64, 65, 119, 120, 200, 1000]) {
      const bytes = new Uint8Array(n).map((_, i) => (i * 31 + n) % 256)
      assert.strictEqual(hex(sha1(bytes)), createHash("sha1").update(bytes).digest("hex"), `length ${n}`)
    }
  })

  it("uuidV5 is RFC 4122's: the DNS namespace example, and node:crypto's for any name", () => {
    assert.strictEqual(
      uuidV5("python.org", "6ba7b810-9dad-11d1-80b4-00c04fd430c8"),
      "886313e1-3b8a-5372-9b90-0c9aee199e5d"
    )
    for (const name of ["chain:ethereum", "protocol:lendwell", "é:ü", ""])
      assert.strictEqual(uuidV5(name), nodeUuidV5(name, ImportNamespace))
  })

  it("derived ids are stable, distinct per name and valid version-5 UUIDs", () => {
    const ids = [
      entityIdOf("chain", "ethereum"),
      entityIdOf("protocol", "ethereum"),
      scorecardIdOf("protocol", "lendwell", 1),
      scorecardIdOf("protocol", "lendwell", 2),
      answerIdOf(scorecardIdOf("protocol", "lendwell", 1), "PROT-SEC-01")
    ]
    assert.strictEqual(new Set(ids).size, ids.length)
    assert.strictEqual(entityIdOf("chain", "ethereum"), entityIdOf("chain", "ethereum"))
    for (const id of ids)
      assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  })
})
