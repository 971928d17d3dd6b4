/**
 * The state of the dispatcher's loop (RunLoop.ts), shared by its sends
 * (Sending.ts) and their recorder (SentRecorder.ts). Fibers and the
 * transport's callbacks only interleave between plain statements of one
 * thread, so plain fields are enough.
 */
import type { SendScheduler } from "../../webhooks/SendScheduler.ts"
import type { Claimed } from "./Settings.ts"

/** A claimed delivery waiting in the scheduler, with when and under which token it was claimed. */
export interface Ready {
  readonly claimed: Claimed
  readonly at: number
  readonly token: string
}

export interface LoopState {
  /** Claimed deliveries waiting for a slot (and for room under their host's bound), and those in flight. */
  readonly sends: SendScheduler<Ready>
  /** The retry times this process has recorded, so that it wakes exactly when one falls due. */
  readonly dueTimes: Set<number>
  /** Attempts whose send is over and whose outcome is being recorded: they hold no send slot. */
  recording: number
  /** When the current sleep ends (-Infinity while not sleeping). An attempt that records an earlier retry opens `kick`. */
  wakeAt: number
  /** The loop waits for the window to empty enough for a claim; the next attempt that settles opens `kick`. */
  waitingForRoom: boolean
  /** Asked to stop: nothing more is claimed or started, what is ready is handed back, and the loop waits for its attempts in flight. */
  stopping: boolean
}
