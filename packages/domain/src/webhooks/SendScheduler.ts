/**
 * Which claimed webhook delivery is sent next: a pure scheduler under two
 * bounds, the sends in flight at once (`slots`) and the sends in flight to
 * one destination host at once (`perHost`). A delivery whose host is at its
 * bound waits without taking a slot, so a few slow receivers cannot hold
 * every slot; hosts with work take turns, each in the order its deliveries
 * were offered. `startable` is what could start now (ignoring slots): the
 * dispatcher claims ahead by it, so deliveries waiting on a saturated host
 * do not stop it claiming for the others.
 */

/** The WHATWG URL parser every runtime has (the domain's lib has no DOM types). */
const WhatwgUrl = (
  globalThis as unknown as {
    readonly URL: new (input: string) => { readonly protocol: string; readonly host: string }
  }
).URL

const hostOfUrl = (url: string): string => {
  try {
    const parsed = new WhatwgUrl(url)
    return `${parsed.protocol}//${parsed.host}`
  } catch {
    return url
  }
}

/**
 * The destination host of a webhook URL (scheme, host and port), the unit of
 * the per-host bound. A URL that does not parse is its own host.
 */
export const destinationHost = (url: string): string => hostOfUrl(url)

/** How many URLs a scheduler keeps their host remembered for, at most; past that its memory starts over. */
export const RememberedHosts = 10_000

interface Host<A> {
  readonly key: string
  readonly items: Array<A>
  /** Index of the first waiting item of `items`. */
  head: number
  inFlight: number
  /** In the turn queue: it has waiting items and room under the per-host bound. */
  queued: boolean
}

const waitingOf = (host: Host<unknown>) => host.items.length - host.head

export class SendScheduler<A> {
  readonly slots: number
  readonly perHost: number
  /** Sends started and not yet done. */
  inFlight = 0
  /** Items offered and not yet started. */
  waiting = 0
  /** Waiting items that could start now if slots were free: their hosts have room. */
  startable = 0
  private readonly hosts = new Map<string, Host<A>>()
  /** URL -> destination host, per scheduler (per dispatcher): every claimed delivery asks. */
  private readonly hostsOfUrls = new Map<string, string>()
  private readonly rememberedHosts: number
  private turns: Array<Host<A>> = []
  private turnHead = 0

  constructor(slots: number, perHost: number, rememberedHosts: number = RememberedHosts) {
    if (!Number.isInteger(slots) || slots < 1)
      throw new RangeError(`slots must be a whole number >= 1, got ${slots}`)
    if (!Number.isInteger(perHost) || perHost < 1)
      throw new RangeError(`perHost must be a whole number >= 1, got ${perHost}`)
    this.slots = slots
    this.perHost = perHost
    this.rememberedHosts = Math.max(1, rememberedHosts)
  }

  /** `destinationHost` of a URL, remembered by this scheduler for the next delivery to it. */
  hostOf(url: string): string {
    let host = this.hostsOfUrls.get(url)
    if (host === undefined) {
      host = hostOfUrl(url)
      if (this.hostsOfUrls.size >= this.rememberedHosts) this.hostsOfUrls.clear()
      this.hostsOfUrls.set(url, host)
    }
    return host
  }

  /** How many URLs this scheduler remembers the host of now. */
  get rememberedUrls(): number {
    return this.hostsOfUrls.size
  }

  /** How many of a host's waiting items could start now (ignoring slots). */
  private contribution(host: Host<A>): number {
    return Math.max(0, Math.min(waitingOf(host), this.perHost - host.inFlight))
  }

  private enqueueTurn(host: Host<A>) {
    if (host.queued || waitingOf(host) === 0 || host.inFlight >= this.perHost) return
    host.queued = true
    this.turns.push(host)
  }

  private forgetIfIdle(host: Host<A>) {
    if (waitingOf(host) === 0 && host.inFlight === 0 && !host.queued) this.hosts.delete(host.key)
  }

  /** Offers an item bound for `host`; it starts after the host's earlier items. */
  offer(host: string, item: A): void {
    let h = this.hosts.get(host)
    if (h === undefined) {
      h = { key: host, items: [], head: 0, inFlight: 0, queued: false }
      this.hosts.set(host, h)
    }
    const before = this.contribution(h)
    h.items.push(item)
    this.waiting++
    this.startable += this.contribution(h) - before
    this.enqueueTurn(h)
  }

  /**
   * The next item to start, counted in flight from now on, with its host;
   * undefined when every slot is taken or no waiting item's host has room.
   */
  next(): { readonly host: string; readonly item: A } | undefined {
    if (this.inFlight >= this.slots) return undefined
    const h = this.turns[this.turnHead]
    if (h === undefined) return undefined
    this.turnHead++
    if (this.turnHead > 1024 && this.turnHead * 2 > this.turns.length) {
      this.turns = this.turns.slice(this.turnHead)
      this.turnHead = 0
    }
    h.queued = false
    const item = h.items[h.head]!
    h.head++
    if (h.head === h.items.length) {
      h.items.length = 0
      h.head = 0
    } else if (h.head > 1024 && h.head * 2 > h.items.length) {
      h.items.splice(0, h.head)
      h.head = 0
    }
    h.inFlight++
    this.inFlight++
    this.waiting--
    this.startable--
    this.enqueueTurn(h)
    return { host: h.key, item }
  }

  /** A send to `host` started by `next` is over: its slot and its place under the host's bound are free. */
  done(host: string): void {
    const h = this.hosts.get(host)
    if (h === undefined || h.inFlight === 0) throw new Error(`no send in flight to ${host}`)
    const before = this.contribution(h)
    h.inFlight--
    this.inFlight--
    this.startable += this.contribution(h) - before
    this.enqueueTurn(h)
    this.forgetIfIdle(h)
  }

  /** Removes and returns every waiting item (in flight ones stay counted until `done`). */
  drain(): Array<A> {
    const drained: Array<A> = []
    for (const h of this.hosts.values()) {
      drained.push(...h.items.slice(h.head))
      h.items.length = 0
      h.head = 0
      h.queued = false
    }
    for (const h of [...this.hosts.values()]) this.forgetIfIdle(h)
    this.turns = []
    this.turnHead = 0
    this.waiting = 0
    this.startable = 0
    return drained
  }

  /** Sends in flight to `host` now. */
  inFlightTo(host: string): number {
    return this.hosts.get(host)?.inFlight ?? 0
  }
}
