/**
 * The shapes of the records a record store keeps (ImportRecordStore.ts): an
 * object is kept as the JSON array of its values, and its keys once per
 * store, for every record of the same keys; an object nested in it (not in
 * an array) likewise, its shape part of its parent's. Most of a planned
 * draft's or an entity record's text would otherwise be its key names.
 */

/** The keys of an object and, by position, the shape of each value that is itself a plain object. */
export interface Shape {
  readonly keys: ReadonlyArray<string>
  readonly nested: ReadonlyArray<Shape | undefined>
}

/** Shapes a store keeps at most; an object of any other shape is kept as its JSON. */
const MaxShapes = 1024

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v)

/** An object as its values (nested objects likewise), and the name of its shape. */
interface Encoded {
  readonly values: Array<unknown>
  readonly name: string
  readonly keys: ReadonlyArray<string>
  readonly nested: ReadonlyArray<Encoded | undefined>
}

const encodeObject = (value: Record<string, unknown>): Encoded => {
  const keys = Object.keys(value)
  const values = new Array<unknown>(keys.length)
  const nested = new Array<Encoded | undefined>(keys.length)
  let name = JSON.stringify(keys)
  for (let i = 0; i < keys.length; i++) {
    const v = value[keys[i]!]
    if (isPlainObject(v)) {
      const inner = encodeObject(v)
      nested[i] = inner
      values[i] = inner.values
      name += `${i}${inner.name}`
    } else values[i] = v
  }
  return { values, name: `{${name}}`, keys, nested }
}

/** Rebuilds an object of `shape` from its values, keys in the shape's order. */
export const rebuildShaped = (shape: Shape, values: ReadonlyArray<unknown>): Record<string, unknown> => {
  const record: Record<string, unknown> = {}
  const { keys, nested } = shape
  for (let i = 0; i < keys.length; i++) {
    const inner = nested[i]
    record[keys[i]!] =
      inner === undefined ? values[i] : rebuildShaped(inner, values[i] as ReadonlyArray<unknown>)
  }
  return record
}

export interface Shapes {
  /** A JSON-exact value as the text to keep, and its shape's index; -1: kept as its own JSON. */
  readonly encode: (value: unknown) => { readonly text: string; readonly shape: number }
  /** The value of a kept text parsed, rebuilt as an object when it has a shape. */
  readonly decode: (parsed: unknown, shape: number) => unknown
}

/** The shapes of one store. */
export const shapes = (): Shapes => {
  const byName = new Map<string, Shape>()
  const topIds = new Map<string, number>()
  const tops: Array<Shape> = []
  const register = (e: Encoded): Shape => {
    const known = byName.get(e.name)
    if (known !== undefined) return known
    const shape: Shape = {
      keys: e.keys,
      nested: e.nested.map((n) => (n === undefined ? undefined : register(n)))
    }
    byName.set(e.name, shape)
    return shape
  }
  return {
    encode: (value) => {
      if (!isPlainObject(value)) return { text: JSON.stringify(value), shape: -1 }
      const encoded = encodeObject(value)
      let id = topIds.get(encoded.name)
      if (id === undefined) {
        if (byName.size >= MaxShapes) return { text: JSON.stringify(value), shape: -1 }
        id = tops.length
        tops.push(register(encoded))
        topIds.set(encoded.name, id)
      }
      return { text: JSON.stringify(encoded.values), shape: id }
    },
    decode: (parsed, shape) =>
      shape < 0 ? parsed : rebuildShaped(tops[shape]!, parsed as ReadonlyArray<unknown>)
  }
}
