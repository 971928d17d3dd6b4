/**
 * The memory behind the response cache: values by key, bounded by entries and
 * bytes (least recently used first), each dropped after a TTL, and indexed by
 * what invalidates them: one entity, every entity of its type (a list), and
 * other topics it shows (`Dependency.also`). A computation takes a `ticket()`
 * before it reads, and `set` refuses its value when a change of its type (or
 * a clear) came after that ticket. Plain synchronous data: the caller passes
 * the time.
 */
import type { ChangeTopic } from "@ratings/domain/model/ChangeTopic"

/**
 * `entity_id` is `*` when every entity of the type may have changed. The
 * type is an entity type or a feed (incidents, quantum readiness: ChangeTopic.ts).
 */
export interface EntityChange {
  readonly entity_type: ChangeTopic
  readonly entity_id: string
}

export const AllOfType = "*"

export interface StoreLimits {
  /** Most values held. */
  readonly maxEntries: number
  /** Most bytes held, counted as the sizes given to `set`. A larger value is never stored. */
  readonly maxBytes: number
  /** How long a value may be served at most, whatever happens (a safety net behind invalidation). */
  readonly ttlMillis: number
}

/**
 * What a value depends on: one entity of a type, or (no `entityId`) every
 * entity of the type; and every entity of each of the `also` topics (an
 * incident feed shows protocols by slug, so hiding one must drop it).
 */
export interface Dependency {
  readonly type: ChangeTopic
  readonly entityId?: string | undefined
  readonly also?: ReadonlyArray<ChangeTopic> | undefined
  /**
   * The instant (epoch ms) after which the value must not be served, when it
   * holds a field that changes with the clock (a quantum stale flag): the
   * entry expires then if that comes before the TTL.
   */
  readonly expiresAt?: number | undefined
}

export interface StoreStats {
  readonly entries: number
  readonly bytes: number
  readonly hits: number
  readonly misses: number
  readonly stored: number
  /** Values `set` refused because a change of their type came after their ticket. */
  readonly refused: number
  readonly evicted: number
  readonly expired: number
  readonly invalidated: number
}

interface Entry<V> {
  readonly key: string
  readonly value: V
  readonly bytes: number
  readonly type: ChangeTopic
  /** `type:id`, or undefined for a type-wide value. */
  readonly entity: string | undefined
  /** Topics of which the value depends on every entity, beyond `type`. */
  readonly also: ReadonlyArray<ChangeTopic>
  readonly expiresAt: number
}

const entityKey = (type: ChangeTopic, id: string): string => `${type}:${id.toLowerCase()}`

const addTo = <K>(index: Map<K, Set<string>>, at: K, key: string) => {
  const keys = index.get(at)
  if (keys === undefined) index.set(at, new Set([key]))
  else keys.add(key)
}

const removeFrom = <K>(index: Map<K, Set<string>>, at: K, key: string) => {
  const keys = index.get(at)
  if (keys === undefined) return
  keys.delete(key)
  if (keys.size === 0) index.delete(at)
}

export class ProjectionStore<V> {
  readonly limits: StoreLimits
  /** Insertion order is recency order: a hit moves its entry to the end, eviction takes the first. */
  private readonly entries = new Map<string, Entry<V>>()
  private readonly byType = new Map<ChangeTopic, Set<string>>()
  private readonly typeWide = new Map<ChangeTopic, Set<string>>()
  private readonly byEntity = new Map<string, Set<string>>()
  /** A counter of changes; tickets are its values. */
  private clock = 0
  private readonly changedAt = new Map<ChangeTopic, number>()
  private clearedAt = 0
  private totalBytes = 0
  private hits = 0
  private misses = 0
  private stored = 0
  private refused = 0
  private evicted = 0
  private expired = 0
  private invalidated = 0

  constructor(limits: StoreLimits) {
    this.limits = limits
  }

  /** The value of `key` if held and not expired; a hit makes it the most recently used. */
  get(key: string, now: number): V | undefined {
    const entry = this.entries.get(key)
    if (entry === undefined) {
      this.misses++
      return undefined
    }
    if (entry.expiresAt <= now) {
      this.remove(entry)
      this.expired++
      this.misses++
      return undefined
    }
    this.entries.delete(key)
    this.entries.set(key, entry)
    this.hits++
    return entry.value
  }

  /** Taken before computing a value to `set`: the value is stored only if nothing of its type changed since. */
  ticket(): number {
    return this.clock
  }

  /** Whether a change of one of the dependency's topics (or a clear) came after `ticket`. */
  private changedSince(dependency: Dependency, ticket: number): boolean {
    if (this.clearedAt > ticket || (this.changedAt.get(dependency.type) ?? 0) > ticket) return true
    return (dependency.also ?? []).some((topic) => (this.changedAt.get(topic) ?? 0) > ticket)
  }

  /**
   * Stores a value computed after `ticket` was taken, unless a change of one
   * of its topics (or a clear) came since, it is larger than the whole
   * budget, or its own expiry has passed. Returns whether it was stored.
   */
  set(key: string, value: V, bytes: number, dependency: Dependency, ticket: number, now: number): boolean {
    if (this.changedSince(dependency, ticket)) {
      this.refused++
      return false
    }
    if (bytes > this.limits.maxBytes || this.limits.maxEntries < 1) return false
    const expiresAt = Math.min(now + this.limits.ttlMillis, dependency.expiresAt ?? Number.POSITIVE_INFINITY)
    if (expiresAt <= now) return false
    const previous = this.entries.get(key)
    if (previous !== undefined) this.remove(previous)
    const entry: Entry<V> = {
      key,
      value,
      bytes,
      type: dependency.type,
      entity: dependency.entityId === undefined ? undefined : entityKey(dependency.type, dependency.entityId),
      also: dependency.also ?? [],
      expiresAt
    }
    this.entries.set(key, entry)
    addTo(this.byType, entry.type, key)
    if (entry.entity === undefined) addTo(this.typeWide, entry.type, key)
    else addTo(this.byEntity, entry.entity, key)
    for (const topic of entry.also) {
      addTo(this.byType, topic, key)
      addTo(this.typeWide, topic, key)
    }
    this.totalBytes += bytes
    this.stored++
    while (this.entries.size > this.limits.maxEntries || this.totalBytes > this.limits.maxBytes) {
      const oldest = this.entries.values().next()
      if (oldest.done === true) break
      this.remove(oldest.value)
      this.evicted++
    }
    return true
  }

  /** Drops what a change invalidates. Returns how many values were dropped. */
  invalidate(change: EntityChange): number {
    this.clock++
    this.changedAt.set(change.entity_type, this.clock)
    const keys =
      change.entity_id === AllOfType
        ? [...(this.byType.get(change.entity_type) ?? [])]
        : [
            ...(this.typeWide.get(change.entity_type) ?? []),
            ...(this.byEntity.get(entityKey(change.entity_type, change.entity_id)) ?? [])
          ]
    let dropped = 0
    for (const key of keys) {
      const entry = this.entries.get(key)
      if (entry === undefined) continue
      this.remove(entry)
      dropped++
    }
    this.invalidated += dropped
    return dropped
  }

  /** Drops everything, and refuses every value computed before. */
  clear(): void {
    this.clock++
    this.clearedAt = this.clock
    this.invalidated += this.entries.size
    this.entries.clear()
    this.byType.clear()
    this.typeWide.clear()
    this.byEntity.clear()
    this.totalBytes = 0
  }

  stats(): StoreStats {
    return {
      entries: this.entries.size,
      bytes: this.totalBytes,
      hits: this.hits,
      misses: this.misses,
      stored: this.stored,
      refused: this.refused,
      evicted: this.evicted,
      expired: this.expired,
      invalidated: this.invalidated
    }
  }

  private remove(entry: Entry<V>): void {
    this.entries.delete(entry.key)
    removeFrom(this.byType, entry.type, entry.key)
    if (entry.entity === undefined) removeFrom(this.typeWide, entry.type, entry.key)
    else removeFrom(this.byEntity, entry.entity, entry.key)
    for (const topic of entry.also) {
      removeFrom(this.byType, topic, entry.key)
      removeFrom(this.typeWide, topic, entry.key)
    }
    this.totalBytes -= entry.bytes
  }
}
