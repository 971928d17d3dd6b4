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
 * Runs `statement` (a `COPY ... FROM STDIN`) on `session`, sending `frames`
 * (whole CopyData messages, made as they are needed: encoding overlaps the
 * server's work) and then CopyDone; the rows copied. A frame that cannot be
 * made (an error thrown by `frames`) ends the copy with CopyFail; a failure
 * of the server is reported once it is ready again, so the transaction
 * carries on to its rollback on a sound session. Interrupted, the copy is
 * failed and awaited the same way.
 */
export const copyIn = (
  session: CopySession,
  statement: string,
  frames: Iterator<Uint8Array>
): Effect.Effect<number, SqlError.SqlError> =>
  session.wire.withPermit(
    Effect.suspend(() => {
      const settled = Deferred.makeUnsafe<void>()
      return Effect.callback<number, SqlError.SqlError>((resume) => {
        if (session.deadWith !== undefined) return resume(Effect.fail(session.deadWith))
        const socket = session.session.socket
        let state: "waiting" | "sending" | "sent" = "waiting"
        let failure: SqlError.SqlError | undefined
        let interrupted = false
        let rows = 0
        const fail = (error: SqlError.SqlError, why: string) => {
          failure ??= error
          if (state === "sending") socket.write(copyFail(why))
          state = "sent"
        }
        const pump = (): void => {
          while (state === "sending") {
            let next: IteratorResult<Uint8Array>
            try {
              next = frames.next()
            } catch (cause) {
              fail(copyError(cause, "could not encode the rows"), "could not encode the rows")
              return
            }
            if (next.done === true) {
              state = "sent"
              socket.write(CopyDone)
              return
            }
            if (!socket.write(next.value)) {
              socket.once("drain", pump)
              return
            }
          }
        }
        const finish = (effect: Effect.Effect<number, SqlError.SqlError>) => {
          session.consumer = undefined
          socket.off("drain", pump)
          Deferred.doneUnsafe(settled, Effect.void)
          resume(effect)
        }
        session.consumer = {
          onMessage: (m) => {
            switch (m._tag) {
              case "CopyInResponse":
                state = "sending"
                if (interrupted) return fail(copyError(undefined, "interrupted"), "interrupted")
                return pump()
              case "CommandComplete":
                rows = Number(m.commandTag.split(" ").at(-1))
                return
              case "ErrorResponse":
                return fail(serverError(m.fields), "the server failed the copy")
              case "ReadyForQuery":
                return finish(failure === undefined ? Effect.succeed(rows) : Effect.fail(failure))
              default:
                return session.fatal(
                  copyError(new Error(`Unexpected ${m._tag}`), `unexpected ${m._tag} in COPY`)
                )
            }
          },
          onFatal: (error) => finish(Effect.fail(error))
        }
        session.session.parser.readField = undefined
        try {
          socket.write(queryMessage(statement))
        } catch (cause) {
          session.fatal(copyError(cause, "could not write the COPY"))
        }
        return Effect.suspend(() => {
          if (Deferred.isDoneUnsafe(settled)) return Effect.void
          interrupted = true
          fail(copyError(undefined, "interrupted"), "interrupted")
          return Deferred.await(settled)
        })
      })
    })
  )
