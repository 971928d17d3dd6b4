/**
 * The budgets of a transport's POSTs in flight, on one real timer instead of
 * one per POST: a timer per request costs its allocation, its arming and its
 * clearing on every send. POSTs of one timeout end in the order they started,
 * so each timeout's POSTs are kept in start order and only the first of each
 * can be the next to expire. The timer is armed while any POST is in flight,
 * for the earliest deadline, and fires within a millisecond of it.
 */

/** A POST with a budget: `expire` is called once its deadline (a `performance.now()` time) has passed. */
export interface Deadline {
  readonly timeoutMs: number
  readonly deadline: number
  readonly expire: () => void
}

const MaxTimerMs = 2 ** 31 - 1

export class PostDeadlines {
  /** By timeout: the POSTs in flight in start order (a Set iterates in insertion order). */
  private readonly byTimeout = new Map<number, Set<Deadline>>()
  private timer: ReturnType<typeof setTimeout> | undefined = undefined
  /** The deadline the timer is armed for (Infinity when it is not armed). */
  private armedFor = Number.POSITIVE_INFINITY
  private size = 0

  /** Whether the timer is armed: it is while any POST is in flight, and only then. */
  get armed(): boolean {
    return this.timer !== undefined
  }

  add(post: Deadline): void {
    let queue = this.byTimeout.get(post.timeoutMs)
    if (queue === undefined) {
      queue = new Set()
      this.byTimeout.set(post.timeoutMs, queue)
    }
    queue.add(post)
    this.size++
    if (post.deadline < this.armedFor) this.arm(post.deadline)
  }

  /** The POST ended (or expired): it no longer holds the timer. Removing it twice does nothing. */
  remove(post: Deadline): void {
    const queue = this.byTimeout.get(post.timeoutMs)
    if (queue === undefined || !queue.delete(post)) return
    if (queue.size === 0) this.byTimeout.delete(post.timeoutMs)
    this.size--
    if (this.size === 0) this.disarm()
    // Otherwise the timer stays armed: if it fires early for what is left, it re-arms then.
  }

  private arm(deadline: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.armedFor = deadline
    // setTimeout takes at most 2^31-1 ms; a later deadline re-arms when that fires.
    const delay = Math.min(MaxTimerMs, Math.max(1, Math.ceil(deadline - performance.now())))
    this.timer = setTimeout(this.fire, delay)
  }

  private disarm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
    this.armedFor = Number.POSITIVE_INFINITY
  }

  private readonly fire = (): void => {
    this.timer = undefined
    this.armedFor = Number.POSITIVE_INFINITY
    const now = performance.now()
    const expired: Array<Deadline> = []
    let next = Number.POSITIVE_INFINITY
    for (const queue of this.byTimeout.values())
      for (const post of queue) {
        if (post.deadline > now) {
          if (post.deadline < next) next = post.deadline
          break
        }
        expired.push(post)
      }
    // In deadline order across timeouts. Expiring reports each POST, which removes it (and may
    // start others, added meanwhile).
    expired.sort((a, b) => a.deadline - b.deadline)
    for (const post of expired) {
      this.remove(post)
      post.expire()
    }
    if (this.size > 0 && next < this.armedFor) this.arm(next)
  }
}
