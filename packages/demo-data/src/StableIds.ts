/**
 * Stable ids for the demo dataset: RFC 4122 version-5 UUIDs derived from a
 * name ("protocol:aave-v3", "answer:<scorecard>:<question>"). Rebuilding the
 * demo therefore gives every record the id it had before, and an entity that
 * is renamed keeps its id because its key, not its slug, names it.
 */
import { createHash } from "node:crypto"

/** A fixed namespace of the demo dataset: changing it would give every demo record a new id. */
export const DemoNamespace = "5d0f6f2e-8a2b-5c3e-9f4a-6b1d2c3e4f50"

const bytesOfUuid = (uuid: string): Buffer => Buffer.from(uuid.replaceAll("-", ""), "hex")

export const uuidV5 = (name: string, namespace: string = DemoNamespace): string => {
  const hash = createHash("sha1").update(bytesOfUuid(namespace)).update(name, "utf8").digest()
  hash[6] = (hash[6]! & 0x0f) | 0x50
  hash[8] = (hash[8]! & 0x3f) | 0x80
  const hex = hash.subarray(0, 16).toString("hex")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`
}
