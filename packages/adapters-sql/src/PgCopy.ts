/**
 * `COPY ... FROM STDIN` inside the current transaction, on its connection.
 * The driver (@effect/sql-pg) speaks the wire protocol itself and has no COPY
 * of its own (it treats a CopyInResponse as a desynchronised session). This
 * runs the copy-in sub-protocol on the driver's session the way one of its
 * statements runs: holding the session's wire permit, taking the backend's
 * messages until ReadyForQuery, writing the data with the socket's
 * backpressure. What it uses of the driver is checked when reached
 * (`copySession`); where it is not there, or outside a transaction, there is
 * no session and callers keep their statements.
 */
import type { Duplex } from "node:stream"
import type { PgClient, PgProtocol } from "@effect/sql-pg"
import { Deferred, Effect, Option } from "effect"
import { SqlError } from "effect/sql"

/** Where the driver keeps a connection's internals (its `internalsKey`), the unpinned session under `base`. */
const InternalsKey = "~@effect/sql-pg/PgConnection/internals"

/** What the driver routes a session's backend messages to while a cycle runs. */
interface Consumer {
  readonly onMessage: (message: PgProtocol.BackendMessage<unknown>) => void
  readonly onFatal: (error: SqlError.SqlError) => void
}

/** The parts of the driver's session a copy uses. */
export interface CopySession {
  readonly wire: { readonly withPermit: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R> }
  consumer: Consumer | undefined
  readonly deadWith: SqlError.SqlError | undefined
  readonly session: { readonly socket: Duplex; readonly parser: { readField: unknown } }
  readonly fatal: (error: SqlError.SqlError) => void
}

const isCopySession = (base: unknown): base is CopySession => {
  const b = base as Partial<Record<keyof CopySession, unknown>> | undefined
  const session = b?.session as { socket?: Partial<Duplex>; parser?: object } | undefined
  return (
    typeof b === "object" &&
    b !== null &&
    typeof (b.wire as { withPermit?: unknown } | undefined)?.withPermit === "function" &&
    typeof b.fatal === "function" &&
    "consumer" in b &&
    typeof session?.socket?.write === "function" &&
    typeof session.socket.once === "function" &&
    typeof session.parser === "object" &&
    "readField" in session.parser
  )
}

/** The session of the transaction `sql` runs in, when the driver's internals are as expected. */
export const copySession = (sql: PgClient.PgClient): Effect.Effect<CopySession | undefined> =>
  Effect.map(Effect.serviceOption(sql.transactionService), (tx) => {
    if (Option.isNone(tx)) return undefined
    const connection = (tx.value[0] as { connection?: Record<string, { base?: unknown } | undefined> })
      .connection
    const base = connection?.[InternalsKey]?.base
    return isCopySession(base) ? base : undefined
  })

const encoder = new TextEncoder()
/** How long an interrupted copy waits for the server before giving up the session. */
export const InterruptWaitMs = 5_000
/** CopyData messages written in one go before the event loop is let run. */
const FramesPerTurn = 4

/** A frontend message: its type byte, its length, the body. */
const message = (type: number, body: Uint8Array): Uint8Array => {
  const out = new Uint8Array(5 + body.length)
  out[0] = type
  new DataView(out.buffer).setInt32(1, 4 + body.length)
  out.set(body, 5)
  return out
}

/** A simple-protocol Query: a rejected COPY discards the rest of it and the backend is ready again. */
const queryMessage = (statement: string) => message(0x51, encoder.encode(`${statement}\0`))
const CopyDone = message(0x63, new Uint8Array(0))
const copyFail = (why: string) => message(0x66, encoder.encode(`${why}\0`))

/** The server's error as the driver makes it: its fields on the cause, which StoreError mapping reads. */
const serverError = (fields: PgProtocol.ErrorFields): SqlError.SqlError => {
  const cause = Object.assign(new Error(fields.message ?? "Unknown PostgreSQL error"), fields)
  const props = { cause, message: "PgCopy: COPY failed", operation: "copy" }
  return new SqlError.SqlError({
    reason:
      fields.code?.startsWith("23") === true
        ? new SqlError.ConstraintError(props)
        : new SqlError.UnknownError(props)
  })
}

const copyError = (cause: unknown, why: string): SqlError.SqlError =>
  new SqlError.SqlError({
    reason: new SqlError.UnknownError({ cause, message: `PgCopy: ${why}`, operation: "copy" })
  })

/**
 * One copy on a session, as the consumer of its backend messages: the data
 * is pumped once the server asks for it, a failure (the server's, or a frame
 * that cannot be made) ends it, and ReadyForQuery settles it.
 */
class CopyCycle implements Consumer {
  private state: "waiting" | "sending" | "sent" = "waiting"
  private failure: SqlError.SqlError | undefined
  private interrupted = false
  private rows = 0
  private turn: ReturnType<typeof setImmediate> | undefined
  readonly settled = Deferred.makeUnsafe<void>()

  private readonly session: CopySession
  private readonly frames: Iterator<Uint8Array>
  private readonly written: ((frame: Uint8Array) => void) | undefined
  private readonly resume: (effect: Effect.Effect<number, SqlError.SqlError>) => void

  constructor(
    session: CopySession,
    frames: Iterator<Uint8Array>,
    written: ((frame: Uint8Array) => void) | undefined,
    resume: (effect: Effect.Effect<number, SqlError.SqlError>) => void
  ) {
    this.session = session
    this.frames = frames
    this.written = written
    this.resume = resume
  }

  private get socket() {
    return this.session.session.socket
  }

  private fail(error: SqlError.SqlError, why: string): void {
    this.failure ??= error
    if (this.state === "sending") this.socket.write(copyFail(why))
    this.state = "sent"
  }

  /** Writes frames until the socket wants a pause, the data ends, or it is time to let the event loop run. */
  private readonly pump = (): void => {
    this.turn = undefined
    for (let sent = 0; this.state === "sending"; sent++) {
      if (sent === FramesPerTurn) {
        this.turn = setImmediate(this.pump)
        return
      }
      let next: IteratorResult<Uint8Array>
      try {
        next = this.frames.next()
      } catch (cause) {
        this.fail(copyError(cause, "could not encode the rows"), "could not encode the rows")
        return
      }
      if (next.done === true) {
        this.state = "sent"
        this.socket.write(CopyDone)
        return
      }
      const frame = next.value
      const written = this.written
      if (!this.socket.write(frame, written === undefined ? undefined : () => written(frame))) {
        this.socket.once("drain", this.pump)
        return
      }
    }
  }

  private finish(effect: Effect.Effect<number, SqlError.SqlError>): void {
    this.session.consumer = undefined
    this.socket.off("drain", this.pump)
    if (this.turn !== undefined) clearImmediate(this.turn)
    Deferred.doneUnsafe(this.settled, Effect.void)
    this.resume(effect)
  }

  onMessage(m: PgProtocol.BackendMessage<unknown>): void {
    switch (m._tag) {
      case "CopyInResponse":
        this.state = "sending"
        if (this.interrupted) this.fail(copyError(undefined, "interrupted"), "interrupted")
        else this.pump()
        return
      case "CommandComplete":
        this.rows = Number(m.commandTag.split(" ").at(-1))
        return
      case "ErrorResponse":
        this.fail(serverError(m.fields), "the server failed the copy")
        return
      case "ReadyForQuery":
        this.finish(this.failure === undefined ? Effect.succeed(this.rows) : Effect.fail(this.failure))
        return
      default:
        this.session.fatal(copyError(new Error(`Unexpected ${m._tag}`), `unexpected ${m._tag} in COPY`))
    }
  }

  onFatal(error: SqlError.SqlError): void {
    this.finish(Effect.fail(error))
  }

  /**
   * Fails the copy (now, or when the server asks for data) and waits until
   * the session is ready again; a server that does not answer within
   * `InterruptWaitMs` (blocked behind a lock, say) costs the session instead,
   * as the driver does when a cancelled statement does not end.
   */
  readonly interrupt: Effect.Effect<void> = Effect.suspend(() => {
    if (Deferred.isDoneUnsafe(this.settled)) return Effect.void
    this.interrupted = true
    this.fail(copyError(undefined, "interrupted"), "interrupted")
    return Deferred.await(this.settled).pipe(
      Effect.timeoutOrElse({
        duration: InterruptWaitMs,
        orElse: () =>
          Effect.sync(() =>
            this.session.fatal(copyError(undefined, "the server did not end an interrupted COPY"))
          )
      }),
      Effect.asVoid
    )
  })
}

/**
 * Runs `statement` (a `COPY ... FROM STDIN`) on `session`, sending `frames`
 * (whole CopyData messages, made as they are needed: encoding overlaps the
 * server's work) and then CopyDone; the rows copied. A frame that cannot be
 * made (an error thrown by `frames`) ends the copy with CopyFail; a failure
 * of the server is reported once it is ready again, so the transaction
 * carries on to its rollback on a sound session. Interrupted, the copy is
 * failed and awaited the same way. `written` is told each frame the socket
 * has written (its buffer may then be reused).
 */
export const copyIn = (
  session: CopySession,
  statement: string,
  frames: Iterator<Uint8Array>,
  written?: (frame: Uint8Array) => void
): Effect.Effect<number, SqlError.SqlError> =>
  session.wire.withPermit(
    Effect.callback<number, SqlError.SqlError>((resume) => {
      if (session.deadWith !== undefined) return resume(Effect.fail(session.deadWith))
      const cycle = new CopyCycle(session, frames, written, resume)
      session.consumer = cycle
      session.session.parser.readField = undefined
      try {
        session.session.socket.write(queryMessage(statement))
      } catch (cause) {
        session.fatal(copyError(cause, "could not write the COPY"))
      }
      return cycle.interrupt
    })
  )
