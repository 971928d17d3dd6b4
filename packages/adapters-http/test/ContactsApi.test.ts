/**
 * Coverage requests over the real server (issue 17 point 3; api-facts
 * "Coverage requests"): POST /api/v1/contacts on both backends (the
 * in-memory stores and Postgres), each rule a test: the 201 receipt, the 422
 * of each field (invisible and direction characters included), a body in
 * another charset than UTF-8 refused, the repeat of an open request answered
 * 201 with a receipt of its own that shows nothing of the earlier request,
 * and never stored twice (one after another and all at once), a closed
 * request blocking nothing, anonymous callers, and the document (the MCP
 * tool request_coverage: adapters-mcp McpVisibility.test.ts). Then the
 * per-address allowance, apart from the read limits, over servers with a
 * small one (2 an hour, behind a trusted proxy so a test can speak from
 * several addresses), and shared by two servers on one Redis.
 */
import { assert, describe, it } from "@effect/vitest"
import { ContactLimits, ContactRequestTypes } from "@ratings/domain/model/ContactRequest"
import { RateLimitedBody } from "@ratings/domain/model/ErrorBodies"
import { isIsoDateTime } from "@ratings/domain/model/Primitives"
import { ContactRequestRepository } from "@ratings/domain/ports/ContactRequestRepository"
import { Context, Duration, Effect, Layer, Schema } from "effect"
import { ProductionContactLimits, type RateLimitConfig } from "../src/server/limits/RateLimit.ts"
import { MaxRequestBodyBytes } from "../src/server/RouterFallbacks.ts"
import { Seed } from "./fixtures.ts"
import { onEachBackend, type RequestOptions, type Response, TestServer, TestPolicies } from "./TestServer.ts"
import { RedisUrl, redisReachable } from "./Redis.ts"

// biome-ignore lint/suspicious/noExplicitAny: response bodies are probed field by field in assertions
type Json = { readonly [key: string]: any }

const Contacts = "/api/v1/contacts"

/** A fresh address per call, so tests sharing a server never repeat each other's requests. */
const uniqueEmail = (label = "person") => `${label}.${crypto.randomUUID().slice(0, 8)}@example.com`

const body = (over: Json = {}): Json => ({
  protocol_name: `Protocol ${crypto.randomUUID().slice(0, 8)}`,
  contact_email: uniqueEmail(),
  request_type: "rating-request",
  message: "Please rate it: it holds 40M in deposits.",
  ...over
})

const post = (sent: unknown, options: Omit<RequestOptions, "method" | "body"> = {}) =>
  Effect.flatMap(TestServer, (server) =>
    server.request(Contacts, {
      ...options,
      method: "POST",
      ...(options.raw === undefined ? { body: sent } : {})
    })
  )

const json = (r: Response): Json => r.json as Json

/** The 422 entries of a response, as [loc, type] pairs. */
const issues = (r: Response): Array<[string, string]> =>
  (json(r).detail as Array<Json>).map((d) => [(d.loc as Array<string>).join("."), d.type as string])

/** A 422 whose entries all sit at `["body", field]`, each with a message and the value sent as input. */
const assertRefusedAt = (r: Response, field: string, sent: unknown, what: string) => {
  assert.strictEqual(r.status, 422, `${what}: ${r.status} ${r.text}`)
  const detail = json(r).detail as Array<Json>
  assert.isAbove(detail.length, 0, what)
  for (const d of detail) {
    assert.deepStrictEqual(d.loc, ["body", field], `${what}: ${r.text}`)
    assert.isString(d.type, what)
    assert.isString(d.msg, what)
    assert.isNotEmpty(d.msg, what)
    assert.deepStrictEqual(d.input, sent ?? null, what)
  }
}

const storedCount = (email: string) =>
  Effect.gen(function* () {
    const repo = yield* ContactRequestRepository
    const all = yield* repo.list("all", 10_000)
    return all.items.filter((r) => r.contact_email.toLowerCase() === email.toLowerCase()).length
  })

const ReceiptKeys = [
  "contact_email",
  "created_at",
  "entity_type",
  "id",
  "protocol_name",
  "request_type",
  "status"
]

onEachBackend((it) => {
  describe("POST /contacts", () => {
    it.effect(
      "a new coverage request is answered 201 with its receipt (what was sent, open, its id and time, never the message), no-store, and is stored",
      () =>
        Effect.gen(function* () {
          const sent = body({ entity_type: "protocol" })
          const before = Date.now()
          const r = yield* post(sent)
          assert.strictEqual(r.status, 201, r.text)
          const receipt = json(r)
          assert.deepStrictEqual(Object.keys(receipt).sort(), ReceiptKeys)
          assert.match(receipt.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
          assert.deepStrictEqual(
            { ...receipt, id: "", created_at: "" },
            {
              id: "",
              protocol_name: sent.protocol_name,
              entity_type: "protocol",
              contact_email: sent.contact_email,
              request_type: "rating-request",
              status: "open",
              created_at: ""
            }
          )
          assert.isTrue(isIsoDateTime(receipt.created_at), receipt.created_at)
          assert.isAtLeast(Date.parse(receipt.created_at), before - 1000)
          assert.notInclude(r.text, sent.message)
          assert.strictEqual(r.headers.get("cache-control"), "no-store")
          const stored = (yield* (yield* ContactRequestRepository).list("open", 10_000)).items.find(
            (x) => x.id === receipt.id
          )
          assert.deepStrictEqual(stored as unknown, {
            ...receipt,
            message: sent.message,
            closed_at: null,
            receipt_ids: [receipt.id]
          })
        })
    )

    it.effect(
      "request_type is rating-request when omitted; message and entity_type may be omitted or null; the name is stored trimmed",
      () =>
        Effect.gen(function* () {
          const name = `Minimal ${crypto.randomUUID().slice(0, 6)}`
          const minimal = yield* post({ protocol_name: `  ${name} `, contact_email: uniqueEmail() })
          assert.strictEqual(minimal.status, 201, minimal.text)
          assert.strictEqual(json(minimal).request_type, "rating-request")
          assert.strictEqual(json(minimal).entity_type, null)
          assert.strictEqual(json(minimal).protocol_name, name)
          const nulls = yield* post(body({ message: null, entity_type: null }))
          assert.strictEqual(nulls.status, 201, nulls.text)
          for (const request_type of ContactRequestTypes) {
            const r = yield* post(body({ request_type }))
            assert.strictEqual(r.status, 201, `${request_type}: ${r.text}`)
            assert.strictEqual(json(r).request_type, request_type)
          }
        })
    )

    it.effect(
      "contact_email that is not an address (no @, two @, no domain dot, a space, a bad label, an empty or over-long local part) is a 422 at [body, contact_email] saying why",
      () =>
        Effect.forEach(
          [
            "no-at-sign.example.com",
            "two@@example.com",
            "a@b@example.com",
            "name@localhost",
            "with space@example.com",
            "@example.com",
            "name@-bad-.com",
            "name@example.c",
            ".leading@example.com",
            "double..dot@example.com",
            `${"l".repeat(65)}@example.com`,
            "name@example.com\n",
            ""
          ],
          (email) =>
            Effect.gen(function* () {
              const r = yield* post(body({ contact_email: email }))
              assertRefusedAt(r, "contact_email", email, JSON.stringify(email))
              assert.include(json(r).detail[0].msg, "valid email address", email)
            }),
          { discard: true }
        )
    )

    it.effect("contact_email over 254 characters is a 422 at [body, contact_email]; 254 is accepted", () =>
      Effect.gen(function* () {
        const exact = `${"l".repeat(64)}@${"d".repeat(63)}.${"d".repeat(63)}.${"d".repeat(57)}.com`
        const longer = `${exact.slice(0, 65)}d${exact.slice(65)}`
        assert.strictEqual(exact.length, ContactLimits.emailMax)
        const ok = yield* post(body({ contact_email: exact }))
        assert.strictEqual(ok.status, 201, ok.text)
        const r = yield* post(body({ contact_email: longer }))
        assertRefusedAt(r, "contact_email", longer, "255 characters")
        assert.include(json(r).detail[0].msg, "254")
      })
    )

    it.effect("protocol_name empty, blank or over 200 characters is a 422 at [body, protocol_name]", () =>
      Effect.forEach(
        ["", "   ", "\u3000", "n".repeat(ContactLimits.nameMax + 1)],
        (name) =>
          Effect.gen(function* () {
            assertRefusedAt(
              yield* post(body({ protocol_name: name })),
              "protocol_name",
              name,
              `${name.length} chars`
            )
          }),
        { discard: true }
      ).pipe(
        Effect.andThen(
          Effect.gen(function* () {
            const exact = `${crypto.randomUUID()}${"n".repeat(ContactLimits.nameMax - 36)}`
            assert.strictEqual((yield* post(body({ protocol_name: exact }))).status, 201, "200 characters")
          })
        )
      )
    )

    it.effect(
      "protocol_name holding a control character (line break, tab, NUL, escape, DEL, a direction override) is a 422 at [body, protocol_name]",
      () =>
        Effect.forEach(
          [
            "Aave\nV4",
            "Aave\tV4",
            "Aave\u0000V4",
            "Aave\u001b[31mV4",
            "Aave\u007fV4",
            "Aave\u0085V4",
            "Aave\u202eV4"
          ],
          (name) =>
            Effect.gen(function* () {
              const r = yield* post(body({ protocol_name: name }))
              assertRefusedAt(r, "protocol_name", name, JSON.stringify(name))
              assert.include(json(r).detail[0].msg, "control characters")
            }),
          { discard: true }
        )
    )

    it.effect(
      "invisible coverage names: a protocol_name without a visible character, or holding a zero-width, direction or line-separator character, is a 422 at [body, protocol_name]; a message holding one at [body, message]; an address at [body, contact_email]; nothing is stored",
      () =>
        Effect.gen(function* () {
          const email = uniqueEmail("invisible")
          for (const name of ["\u200B", "\u200B\u200D\u2060\uFEFF", " \u3164 ", "\u2029"]) {
            const r = yield* post(body({ protocol_name: name, contact_email: email }))
            assertRefusedAt(r, "protocol_name", name, JSON.stringify(name))
            assert.include(r.text, "visible character", JSON.stringify(name))
          }
          const hiding = [
            ...["\u200B", "\u200C", "\u200D", "\u2060", "\uFEFF", "\u00AD"],
            ...["\u061C", "\u200E", "\u200F", "\u202A", "\u202B", "\u202C", "\u202D", "\u202E"],
            ...["\u2066", "\u2067", "\u2068", "\u2069", "\u2028", "\u2029"]
          ]
          for (const c of hiding) {
            const name = `Aave${c} V4`
            const r = yield* post(body({ protocol_name: name, contact_email: email }))
            assertRefusedAt(r, "protocol_name", name, JSON.stringify(c))
            assert.include(r.text, "zero-width characters, direction marks or overrides", JSON.stringify(c))
            const address = `ana${c}@example.com`
            assertRefusedAt(
              yield* post(body({ contact_email: address })),
              "contact_email",
              address,
              JSON.stringify(c)
            )
            if (c === "\u200C" || c === "\u200D") continue
            const message = `a note${c} for the operators`
            assertRefusedAt(
              yield* post(body({ message, contact_email: email })),
              "message",
              message,
              JSON.stringify(c)
            )
          }
          assert.strictEqual(yield* storedCount(email), 0)
          const joined = yield* post(
            body({ message: "👩\u200D💻 asks; می\u200Cخواهم", contact_email: email })
          )
          assert.strictEqual(joined.status, 201, "the joiners of emoji and scripts are a message's to hold")
        })
    )

    it.effect(
      "invisible coverage names: a body declared in a charset other than UTF-8 (utf-16, latin1; any case, quoted or not) is a JSON 415 saying to send UTF-8, on /contacts and every route that takes a body; utf-8 is served; nothing is stored",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const email = uniqueEmail("charset")
          const text = JSON.stringify({ protocol_name: "Charset Probe", contact_email: email })
          const send = (path: string, contentType: string, bytes: Uint8Array, authorization?: string) =>
            Effect.promise(async () => {
              const res = await fetch(server.baseUrl + path, {
                method: "POST",
                headers: {
                  "content-type": contentType,
                  ...(authorization === undefined ? {} : { authorization })
                },
                body: bytes
              })
              return { status: res.status, type: res.headers.get("content-type"), text: await res.text() }
            })
          const utf16 = new Uint8Array(Buffer.from(`\uFEFF${text}`, "utf16le"))
          const latin1 = new Uint8Array(Buffer.from(text, "latin1"))
          for (const [contentType, bytes, charset] of [
            ["application/json; charset=utf-16", utf16, "utf-16"],
            ["application/json;charset=UTF-16LE", utf16, "UTF-16LE"],
            ['application/json; charset="utf-16"', utf16, "utf-16"],
            ["application/json; charset=latin1", latin1, "latin1"],
            ["Application/JSON ; Charset = ISO-8859-1", latin1, "ISO-8859-1"]
          ] as const) {
            const r = yield* send(Contacts, contentType, bytes)
            assert.strictEqual(r.status, 415, `${contentType}: ${r.text}`)
            assert.match(String(r.type), /^application\/json/)
            const detail = JSON.parse(r.text).detail as string
            assert.include(detail, `"${charset}"`, contentType)
            assert.include(detail, "UTF-8", contentType)
          }
          assert.strictEqual(yield* storedCount(email), 0)
          // Every route that reads a body refuses it before authentication or decoding (/mcp: adapters-mcp).
          for (const [path, authorization] of [
            ["/api/v1/alert-rules", server.bearerFor("pro")],
            ["/api/v1/admin/incidents", server.bearerFor("admin")]
          ] as const) {
            const r = yield* send(path, "application/json; charset=utf-16", utf16, authorization)
            assert.strictEqual(r.status, 415, `${path}: ${r.text}`)
            assert.include(JSON.parse(r.text).detail, "UTF-8", path)
          }
          for (const contentType of [
            "application/json; charset=utf-8",
            'application/json; charset="UTF-8"',
            "application/json;charset=utf8"
          ]) {
            const r = yield* send(Contacts, contentType, new TextEncoder().encode(JSON.stringify(body())))
            assert.strictEqual(r.status, 201, `${contentType}: ${r.text}`)
          }
        })
    )

    it.effect(
      "request_type outside rating-request, re-rating, correction and other is a 422 literal_error at [body, request_type] listing them",
      () =>
        Effect.forEach(
          ["rating_request", "RATING-REQUEST", "", "delete", 7, null],
          (requestType) =>
            Effect.gen(function* () {
              const r = yield* post(body({ request_type: requestType }))
              assertRefusedAt(r, "request_type", requestType, JSON.stringify(requestType))
              const entry = json(r).detail[0]
              if (typeof requestType === "string") {
                assert.strictEqual(entry.type, "literal_error")
                for (const t of ContactRequestTypes) assert.include(entry.msg, `'${t}'`)
              }
            }),
          { discard: true }
        )
    )

    it.effect(
      "message over 2000 characters, or holding control characters other than line breaks and tabs, is a 422 at [body, message]",
      () =>
        Effect.gen(function* () {
          for (const message of [
            "m".repeat(ContactLimits.messageMax + 1),
            "bell\u0007",
            "nul\u0000",
            "esc\u001b[2J",
            "rtl\u202e"
          ]) {
            assertRefusedAt(yield* post(body({ message })), "message", message, `${message.length} chars`)
          }
          const multiline = yield* post(
            body({ message: `line one\nline two\r\n\tindented ${"m".repeat(1900)}` })
          )
          assert.strictEqual(multiline.status, 201, multiline.text)
          const exact = yield* post(body({ message: "m".repeat(ContactLimits.messageMax) }))
          assert.strictEqual(exact.status, 201, "2000 characters")
        })
    )

    it.effect("entity_type outside the seven types is a 422 literal_error at [body, entity_type]", () =>
      Effect.forEach(
        ["protocols", "Protocol", "exchange", 1],
        (entityType) =>
          Effect.gen(function* () {
            const r = yield* post(body({ entity_type: entityType }))
            assertRefusedAt(r, "entity_type", entityType, JSON.stringify(entityType))
          }),
        { discard: true }
      )
    )

    it.effect(
      "protocol_name and contact_email are required: a 422 'missing' at each; every bad field of one body is listed",
      () =>
        Effect.gen(function* () {
          const r = yield* post({ request_type: "nope", message: 5 })
          assert.strictEqual(r.status, 422)
          assert.sameDeepMembers(issues(r), [
            ["body.protocol_name", "missing"],
            ["body.contact_email", "missing"],
            ["body.request_type", "literal_error"],
            ["body.message", "type_error"]
          ])
        })
    )

    it.effect("fields the body does not define are ignored, as on every body of the API", () =>
      Effect.gen(function* () {
        const r = yield* post(
          body({ unexpected: 1, status: "closed", id: "00000000-0000-4000-8000-000000000000" })
        )
        assert.strictEqual(r.status, 201, r.text)
        assert.strictEqual(json(r).status, "open")
        assert.notStrictEqual(json(r).id, "00000000-0000-4000-8000-000000000000")
        assert.notProperty(json(r), "unexpected")
      })
    )

    it.effect(
      "a body that is not application/json is a 415, one that is not JSON a 422, one over 1 MiB a 413; none is stored",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const email = uniqueEmail("transport")
          const form = yield* Effect.promise(() =>
            fetch(server.baseUrl + Contacts, {
              method: "POST",
              headers: { "content-type": "application/x-www-form-urlencoded" },
              body: `protocol_name=x&contact_email=${encodeURIComponent(email)}`
            }).then(async (res) => ({ status: res.status, body: (await res.json()) as Json }))
          )
          assert.strictEqual(form.status, 415)
          assert.include(form.body.detail, "application/json")
          const broken = yield* post(undefined, { raw: `{"protocol_name": "x", "contact_email": "${email}"` })
          assert.strictEqual(broken.status, 422, broken.text)
          assert.deepStrictEqual(json(broken).detail[0].loc, ["body"])
          const huge = yield* post(undefined, {
            raw: JSON.stringify(body({ contact_email: email, message: "m".repeat(MaxRequestBodyBytes) }))
          })
          assert.strictEqual(huge.status, 413, huge.text)
          assert.strictEqual(yield* storedCount(email), 0)
        })
    )

    it.effect("a refused request (422) stores nothing", () =>
      Effect.gen(function* () {
        const email = uniqueEmail("refused")
        assert.strictEqual((yield* post(body({ contact_email: email, request_type: "bogus" }))).status, 422)
        assert.strictEqual((yield* post(body({ contact_email: email, protocol_name: "" }))).status, 422)
        assert.strictEqual(yield* storedCount(email), 0)
      })
    )

    it.effect(
      "a repeat of an open request (same name ignoring case and whitespace, same address ignoring case) is answered 201 with its own receipt (its sender's spellings and types, a reference id of its own), and no second row is stored",
      () =>
        Effect.gen(function* () {
          const email = uniqueEmail("Repeat")
          const first = yield* post(
            body({ protocol_name: "Aave V4", contact_email: email, entity_type: "protocol" })
          )
          assert.strictEqual(first.status, 201, first.text)
          const againSent = body({
            protocol_name: "  aave   v4",
            contact_email: email.toUpperCase(),
            request_type: "other",
            message: "a second, different note",
            entity_type: "chain"
          })
          const again = yield* post(againSent)
          assert.strictEqual(again.status, 201, again.text)
          assert.deepStrictEqual(
            { ...json(again), id: "", created_at: "" },
            {
              id: "",
              protocol_name: "aave   v4",
              entity_type: "chain",
              contact_email: email.toUpperCase(),
              request_type: "other",
              status: "open",
              created_at: ""
            }
          )
          assert.notStrictEqual(json(again).id, json(first).id)
          assert.notInclude(again.text, "a second, different note")
          assert.strictEqual(again.headers.get("cache-control"), "no-store")
          assert.strictEqual(yield* storedCount(email), 1)
          const stored = (yield* (yield* ContactRequestRepository).list("open", 10_000)).items.find(
            (r) => r.id === json(first).id
          )
          assert.deepStrictEqual(stored?.receipt_ids, [json(first).id, json(again).id], "recorded against it")
          const otherEntity = yield* post(body({ protocol_name: "Aave V3", contact_email: email }))
          assert.strictEqual(otherEntity.status, 201, "another entity is another request")
          assert.strictEqual(yield* storedCount(email), 2)
        })
    )

    it.effect(
      "a repeated coverage request does not return another person's receipt: whoever repeats an open request (any spelling, another address) is answered exactly as if none existed, with nothing of the first request",
      () =>
        Effect.gen(function* () {
          const run = crypto.randomUUID().slice(0, 8)
          const victim = `victim.${run}@example.com`
          const first = yield* post({
            protocol_name: `Obscure Protocol ${run}`,
            contact_email: victim,
            request_type: "correction",
            entity_type: "oracle",
            message: "the victim's private note"
          })
          assert.strictEqual(first.status, 201, first.text)
          const guess = {
            protocol_name: `obscure  PROTOCOL ${run}`,
            contact_email: `victim.${run}@EXAMPLE.com`
          }
          const before = Date.now()
          const repeat = yield* post(guess)
          // The same body for a name and address nobody sent before: the answer to compare with.
          const fresh = yield* post({
            protocol_name: `obscure  PROTOCOL ${run}-new`,
            contact_email: `victim.${run}@EXAMPLE.com`
          })
          for (const r of [repeat, fresh]) assert.strictEqual(r.status, 201, r.text)
          const shape = (r: Response) => ({
            keys: Object.keys(json(r)),
            headers: [...r.headers.keys()].sort(),
            statics: ["cache-control", "content-type", "ratelimit-policy"].map((h) => r.headers.get(h))
          })
          assert.deepStrictEqual(shape(repeat), shape(fresh), "the same status, fields and headers")
          const receipt = json(repeat)
          assert.deepStrictEqual(
            { ...receipt, id: "", created_at: "" },
            {
              id: "",
              protocol_name: guess.protocol_name.trim(),
              entity_type: null,
              contact_email: guess.contact_email,
              request_type: "rating-request",
              status: "open",
              created_at: ""
            },
            "only what this caller sent"
          )
          assert.notStrictEqual(receipt.id, json(first).id)
          assert.notStrictEqual(receipt.created_at, json(first).created_at)
          assert.isAtLeast(Date.parse(receipt.created_at), before - 1000, "the time of this submission")
          for (const secret of [
            json(first).id,
            json(first).created_at,
            victim,
            "Obscure Protocol",
            "correction",
            "oracle",
            "private note"
          ])
            assert.notInclude(repeat.text, secret)
          assert.strictEqual(
            yield* storedCount(victim),
            2,
            "the repeat stored once with the first; the fresh one apart"
          )
        })
    )

    it.effect(
      "identical requests sent at once store one row: every one is answered 201 with a reference id of its own, each recorded against that row",
      () =>
        Effect.gen(function* () {
          const sent = body({ contact_email: uniqueEmail("concurrent") })
          const answers = yield* Effect.forEach(Array.from({ length: 16 }), () => post(sent), {
            concurrency: "unbounded"
          })
          assert.deepStrictEqual(
            answers.map((r) => r.status),
            Array.from({ length: 16 }, () => 201),
            answers.map((r) => r.text).join("\n")
          )
          const ids = answers.map((r) => json(r).id as string)
          assert.strictEqual(new Set(ids).size, 16)
          assert.strictEqual(yield* storedCount(sent.contact_email), 1)
          const stored = (yield* (yield* ContactRequestRepository).list("open", 10_000)).items.find(
            (r) => r.contact_email === sent.contact_email
          )
          assert.sameMembers([...stored!.receipt_ids], ids)
          assert.include(ids, stored!.id, "the stored request has the id of the submission that started it")
        })
    )

    it.effect(
      "a closed request does not block a new one: the same request again is stored anew (201 with a new id)",
      () =>
        Effect.gen(function* () {
          const sent = body({ contact_email: uniqueEmail("closed") })
          const first = json(yield* post(sent))
          const closed = yield* (yield* ContactRequestRepository).close(first.id, "2026-08-02T00:00:00+00:00")
          assert.strictEqual(closed._tag, "Closed")
          const again = yield* post(sent)
          assert.strictEqual(again.status, 201, again.text)
          assert.notStrictEqual(json(again).id, first.id)
          assert.strictEqual(json(again).status, "open")
          const repeat = yield* post(sent)
          assert.strictEqual(repeat.status, 201, "the new open request takes its own repeats")
          assert.notStrictEqual(json(repeat).id, json(again).id)
          assert.strictEqual(yield* storedCount(sent.contact_email), 2)
          const open = (yield* (yield* ContactRequestRepository).list("open", 10_000)).items.find(
            (r) => r.id === json(again).id
          )
          assert.deepStrictEqual(open?.receipt_ids, [json(again).id, json(repeat).id])
        })
    )

    it.effect(
      "anonymous: no key is needed, a key of any tier and an admin token are accepted, and a broken key is a 401 as on every route",
      () =>
        Effect.gen(function* () {
          for (const caller of [undefined, "free", "pro", "enterprise", "admin"] as const) {
            const r = yield* post(body(), { caller })
            assert.strictEqual(r.status, 201, `${caller ?? "anonymous"}: ${r.text}`)
          }
          const broken = yield* post(body(), { authorization: "Bearer rk_not-a-real-key" })
          assert.strictEqual(broken.status, 401)
        })
    )

    it.effect(
      "requests are never read back over HTTP: GET, PUT and DELETE on /contacts are a 405 allowing POST only",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          for (const method of ["GET", "PUT", "DELETE"]) {
            const r = yield* Effect.promise(() =>
              fetch(server.baseUrl + Contacts, { method }).then(async (res) => ({
                status: res.status,
                allow: res.headers.get("allow"),
                text: await res.text()
              }))
            )
            assert.strictEqual(r.status, 405, `${method}: ${r.text}`)
            assert.strictEqual(r.allow, "POST", method)
            assert.notInclude(r.text, "@example.com", method)
          }
        })
    )

    it.effect(
      "OpenAPI: POST /api/v1/contacts takes the ContactRequest body (bounds, the request types, required name and address) and answers a ContactReceipt with 201 (new or a repeat alike; no 200), 422 and 429",
      () =>
        Effect.gen(function* () {
          const doc = json(yield* (yield* TestServer).get("/openapi.json"))
          const op = doc.paths[Contacts]?.post
          assert.isDefined(op, "the route is in the document")
          assert.strictEqual(op.operationId, "contacts.create")
          const ref = op.requestBody.content["application/json"].schema.$ref as string
          const schema = doc.components.schemas[ref.split("/").at(-1)!]
          assert.sameMembers(schema.required, ["protocol_name", "contact_email"])
          assert.sameMembers(Object.keys(schema.properties), [
            "protocol_name",
            "contact_email",
            "request_type",
            "message",
            "entity_type"
          ])
          const text = JSON.stringify(schema)
          for (const t of ContactRequestTypes) assert.include(text, `"${t}"`)
          assert.include(text, '"maxLength":200')
          assert.include(text, '"maxLength":254')
          assert.include(text, '"maxLength":2000')
          assert.include(text, '"format":"email"')
          const answer = op.responses["201"]?.content["application/json"].schema.$ref as string
          assert.strictEqual(answer, "#/components/schemas/ContactReceipt")
          assert.notProperty(op.responses, "200", "a repeat is answered as a new request is")
          assert.sameMembers(Object.keys(doc.components.schemas.ContactReceipt.properties), ReceiptKeys)
          for (const status of ["422", "429", "415", "413"]) assert.property(op.responses, status)
          assert.include(op.description, "429")
        })
    )
  })
})

/** Servers whose coverage-request allowance is 2 an hour, behind one trusted proxy (X-Forwarded-For names the client). */
const SmallAllowance = [{ limit: 2, window: "1 hour" }] as const

const from = (address: string, sent: Json = body(), caller?: "free" | "pro") =>
  post(sent, { headers: { "x-forwarded-for": address }, ...(caller === undefined ? {} : { caller }) })

const rateHeaders = (r: Response) => ({
  limit: r.headers.get("ratelimit-limit"),
  remaining: r.headers.get("ratelimit-remaining"),
  policy: r.headers.get("ratelimit-policy")
})

onEachBackend(
  (it) => {
    describe("the coverage-request allowance per client address", () => {
      it.effect(
        "past the allowance (here 2 an hour) a client address is answered 429 with Retry-After and the API's 429 body; the RateLimit headers are the allowance's",
        () =>
          Effect.gen(function* () {
            const served = [yield* from("198.51.100.1"), yield* from("198.51.100.1")]
            assert.deepStrictEqual(
              served.map((r) => [r.status, rateHeaders(r)]),
              [
                [201, { limit: "2", remaining: "1", policy: "2;w=3600" }],
                [201, { limit: "2", remaining: "0", policy: "2;w=3600" }]
              ]
            )
            const refused = yield* from("198.51.100.1")
            assert.strictEqual(refused.status, 429, refused.text)
            const retryAfter = Number(refused.headers.get("retry-after"))
            assert.isTrue(
              Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 3600,
              String(retryAfter)
            )
            assert.deepStrictEqual(json(refused), {
              detail: { error: "rate_limited", retry_after: retryAfter }
            })
            assert.isTrue(Schema.is(RateLimitedBody)(refused.json))
            assert.strictEqual(refused.headers.get("cache-control"), "no-store")
          })
      )

      it.effect("the allowance is per client address: another address is still allowed", () =>
        Effect.gen(function* () {
          for (let i = 0; i < 2; i++) assert.strictEqual((yield* from("198.51.100.2")).status, 201)
          assert.strictEqual((yield* from("198.51.100.2")).status, 429)
          assert.strictEqual((yield* from("198.51.100.3")).status, 201, "another address")
          assert.strictEqual((yield* from("2001:db8:1::1")).status, 201, "an IPv6 address")
        })
      )

      it.effect(
        "the allowance is apart from the read limits, and a key neither escapes nor raises it: a limited address still reads, and its keyed requests are refused too",
        () =>
          Effect.gen(function* () {
            const server = yield* TestServer
            assert.strictEqual((yield* from("198.51.100.4", body(), "pro")).status, 201)
            assert.strictEqual((yield* from("198.51.100.4")).status, 201)
            const keyed = yield* from("198.51.100.4", body(), "free")
            assert.strictEqual(keyed.status, 429, "the address's allowance, whoever sends")
            const read = yield* server.get("/api/v1/protocols", {
              headers: { "x-forwarded-for": "198.51.100.4" }
            })
            assert.strictEqual(read.status, 200, "reads have limits of their own")
            assert.notStrictEqual(read.headers.get("ratelimit-policy"), "2;w=3600")
          })
      )

      it.effect("repeats count against the allowance; refused bodies (422) do not", () =>
        Effect.gen(function* () {
          for (let i = 0; i < 4; i++)
            assert.strictEqual((yield* from("198.51.100.5", body({ contact_email: "bad" }))).status, 422)
          const sent = body()
          assert.strictEqual((yield* from("198.51.100.5", sent)).status, 201)
          assert.strictEqual((yield* from("198.51.100.5", sent)).status, 201, "the repeat")
          assert.strictEqual((yield* from("198.51.100.5", sent)).status, 429)
        })
      )
    })
  },
  { server: { policies: { ...TestPolicies, contacts: SmallAllowance }, auth: () => ({ trustProxy: true }) } }
)

describe("the production coverage-request allowance", () => {
  it("is 5 coverage requests an hour per client address", () => {
    assert.deepStrictEqual(
      ProductionContactLimits.map((w) => [w.limit, Duration.toSeconds(Duration.fromInputUnsafe(w.window))]),
      [[5, 3600]]
    )
  })

  it.effect("a server with the production limits announces it on POST /contacts: 5;w=3600", () =>
    Effect.gen(function* () {
      const r = yield* post(body())
      assert.strictEqual(r.status, 201, r.text)
      assert.deepStrictEqual(rateHeaders(r), { limit: "5", remaining: "4", policy: "5;w=3600" })
    }).pipe(Effect.provide(TestServer.layerMemory(Seed, { policies: {} })))
  )
})

describe("the coverage-request allowance shared between server processes (Redis)", () => {
  it("two servers on one Redis share a client address's allowance: 2 an hour in all, not per process", async (ctx) => {
    if (!(await redisReachable()))
      ctx.skip(`no Redis at ${RedisUrl}: the shared-limiter test needs one (CI has it)`)
    const policies: RateLimitConfig = {
      ...TestPolicies,
      redisUrl: RedisUrl,
      redisKeyPrefix: `ratings-test:${crypto.randomUUID()}:`,
      contacts: SmallAllowance
    }
    const program = Effect.gen(function* () {
      const serverOf = Effect.map(
        Layer.build(TestServer.layerMemory(Seed, { policies, auth: () => ({ trustProxy: true }) })),
        (c) => Context.get(c, TestServer)
      )
      const a = yield* serverOf
      const b = yield* serverOf
      const send = (server: typeof a, address: string) =>
        post(body(), { headers: { "x-forwarded-for": address } }).pipe(
          Effect.provideService(TestServer, server)
        )
      const statuses = [
        (yield* send(a, "203.0.113.9")).status,
        (yield* send(b, "203.0.113.9")).status,
        (yield* send(a, "203.0.113.9")).status,
        (yield* send(b, "203.0.113.9")).status
      ]
      assert.deepStrictEqual(statuses, [201, 201, 429, 429])
      assert.strictEqual((yield* send(b, "203.0.113.10")).status, 201, "another address")
    })
    await Effect.runPromise(Effect.scoped(program))
  })
})
