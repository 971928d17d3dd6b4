/**
 * Values by entity and scorecard version, for the drafts and publish acts
 * validation holds. Keyed by the entity's id key (a text the entity index
 * already holds) and then by version, so that an import of many entities
 * makes no `id:version` text per value; an entity with one version, the
 * common case, holds its value alone.
 */
import { idKey } from "./ImportStoreView.ts"

export interface ReadonlyVersionMap<T> {
  readonly get: (entityId: string, version: number) => T | undefined
  readonly has: (entityId: string, version: number) => boolean
  /** The values of an entity, in no particular order. */
  readonly valuesOf: (entityId: string) => ReadonlyArray<T>
}

export interface VersionMap<T> extends ReadonlyVersionMap<T> {
  /** Sets the value of a version (replacing the one it had). */
  readonly set: (entityId: string, version: number, value: T) => void
}

/** A map that holds nothing. */
export const noVersions: ReadonlyVersionMap<never> = {
  get: () => undefined,
  has: () => false,
  valuesOf: () => []
}

/** An empty map; `versionOf` gives a value's own version (values are objects, never maps). */
export const versionMap = <T extends object>(versionOf: (value: T) => number): VersionMap<T> => {
  const byEntity = new Map<string, T | Map<number, T>>()
  const get = (entityId: string, version: number): T | undefined => {
    const held = byEntity.get(idKey(entityId))
    if (held === undefined) return undefined
    if (held instanceof Map) return held.get(version)
    return sameVersion(versionOf(held), version) ? held : undefined
  }
  return {
    get,
    has: (entityId, version) => get(entityId, version) !== undefined,
    set: (entityId, version, value) => {
      const key = idKey(entityId)
      const held = byEntity.get(key)
      if (held instanceof Map) held.set(version, value)
      else if (held === undefined || sameVersion(versionOf(held), version)) byEntity.set(key, value)
      else
        byEntity.set(
          key,
          new Map([
            [versionOf(held), held],
            [version, value]
          ])
        )
    },
    valuesOf: (entityId) => {
      const held = byEntity.get(idKey(entityId))
      return held === undefined ? [] : held instanceof Map ? [...held.values()] : [held]
    }
  }
}

/** Versions told apart as a Map's keys tell them apart (SameValueZero). */
const sameVersion = (a: number, b: number): boolean => a === b || (Number.isNaN(a) && Number.isNaN(b))
