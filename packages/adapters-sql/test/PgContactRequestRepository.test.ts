/**
 * Coverage requests on Postgres: the port's contract, and what only Postgres
 * can show: identical requests from two server processes (two pools) at once
 * store one row, and the partial unique index refuses a second open row
 * written past the repository, while closed rows repeat freely. A failure
 * never carries the requester's address.
 */
import { assert, describe, it } from "@effect/vitest"
import { PgClient } from "@effect/sql-pg"
import { ContactRequestRepository } from "@ratings/domain/ports/ContactRequestRepository"
import {
  contactRequestRepositoryContract,
  newRequest
} from "@ratings/domain/test-support/contract/ratings-contact-request-repository"
import { Context, Effect, Exit, Layer } from "effect"
import * as PgContactRequestRepository from "../src/PgContactRequestRepository.ts"
import { otherProcessClient, postgresTarget } from "./PostgresTarget.ts"
import { TestDatabase } from "./TestDatabase.ts"

contactRequestRepositoryContract(postgresTarget(PgContactRequestRepository.layer))

/** The repository of "another server process": its own connection pool to the same database. */
const otherProcess = Effect.map(
  Layer.build(PgContactRequestRepository.layer.pipe(Layer.provide(otherProcessClient))),
  (context) => Context.get(context, ContactRequestRepository)
)

const failureText = (exit: Exit.Exit<unknown, unknown>) => (Exit.isFailure(exit) ? String(exit.cause) : "")

describe("PgContactRequestRepository", () => {
  it.layer(TestDatabase)((it) => {
    it.effect(
      "identical requests from two server processes at once store one row; each is recorded against it",
      () =>
        Effect.gen(function* () {
          const here = yield* ContactRequestRepository
          const there = yield* otherProcess
          const sql = yield* PgClient.PgClient
          const outcomes = yield* Effect.forEach(
            Array.from({ length: 20 }, (_, i) => i),
            (i) =>
              (i % 2 === 0 ? here : there).submit(
                newRequest(200 + i, {
                  protocol_name: i % 3 === 0 ? "Race  Protocol" : "race protocol",
                  contact_email: "Racer@example.com"
                })
              ),
            { concurrency: "unbounded" }
          )
          assert.strictEqual(outcomes.filter((o) => o.created).length, 1)
          assert.strictEqual(new Set(outcomes.map((o) => o.request_id)).size, 1)
          const [row] = yield* sql<{ n: number }>`
            SELECT count(*)::int AS n FROM contact_requests WHERE email_key = 'racer@example.com'`
          assert.strictEqual(row!.n, 1)
          const [receipts] = yield* sql<{ n: number }>`
            SELECT count(*)::int AS n FROM contact_receipts WHERE request_id = ${outcomes[0]!.request_id}::uuid`
          assert.strictEqual(receipts!.n, 20)
        }).pipe(Effect.provide(PgContactRequestRepository.layer))
    )

    it.effect(
      "the partial unique index allows one open row per entity and address, and any number of closed ones",
      () =>
        Effect.gen(function* () {
          const sql = yield* PgClient.PgClient
          const insert = (id: string, status: "open" | "closed") =>
            sql`INSERT INTO contact_requests (id, protocol_name, contact_email, request_type, entity_key,
                email_key, status, created_at, closed_at)
              VALUES (${id}::uuid, 'Index Test', 'index@example.com', 'other', 'indextest', 'index@example.com',
                ${status}::text, now(), ${status === "closed" ? new Date() : null})`
          yield* insert("00000000-0000-4000-8000-00000000a001", "closed")
          yield* insert("00000000-0000-4000-8000-00000000a002", "closed")
          yield* insert("00000000-0000-4000-8000-00000000a003", "open")
          const second = yield* Effect.exit(insert("00000000-0000-4000-8000-00000000a004", "open"))
          assert.include(failureText(second), "contact_requests_open_once")
        })
    )

    it.effect("a failed write names the operation and the constraint, never the requester's address", () =>
      Effect.gen(function* () {
        const repo = yield* ContactRequestRepository
        const email = "secret.person@example.com"
        // Past the API's bounds: only the table's check stops it.
        const exit = yield* Effect.exit(
          repo.submit(newRequest(300, { contact_email: email, protocol_name: "x".repeat(201) }))
        )
        const text = failureText(exit)
        assert.include(text, "submit coverage request")
        assert.include(text, "contact_requests_protocol_name_check")
        assert.notInclude(text, email)
        assert.notInclude(text, "x".repeat(201))
      }).pipe(Effect.provide(PgContactRequestRepository.layer))
    )
  })
})
