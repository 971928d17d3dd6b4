/**
 * Coverage requests (api-facts "Coverage requests"): "please rate X", sent to
 * `POST /api/v1/contacts` by anyone, kept for the operators, who list and
 * close them (`ratings contacts list|close`). The body is the live service's
 * `{protocol_name, contact_email, request_type, message}` plus an optional
 * `entity_type`; every bound is a schema check, so it is in the OpenAPI
 * document and a 422 names the field. Every accepted submission is answered
 * a receipt of its own (`ContactReceipt`), so the answer says nothing about
 * anyone else's request; an open request is stored once per entity name and
 * address (`contactKeysOf`), and a repeat is another receipt of it.
 */
import { Schema } from "effect"
import { EntityType } from "./EntityType.ts"
import { IsoDateTime, Uuid } from "./Primitives.ts"

/** What a request asks for: rating an entity not yet rated (the live service's "get rated" queue), ... */
export const ContactRequestTypes = ["rating-request", "re-rating", "correction", "other"] as const
export type ContactRequestType = (typeof ContactRequestTypes)[number]
export const ContactRequestType = Schema.Literals(ContactRequestTypes).annotate({
  description:
    "rating-request: rate an entity not yet covered (the default); re-rating: review a published rating; " +
    "correction: a fact in a rating is wrong; other: anything else"
})

export const DefaultContactRequestType: ContactRequestType = "rating-request"

export const ContactRequestStatuses = ["open", "closed"] as const
export type ContactRequestStatus = (typeof ContactRequestStatuses)[number]
export const ContactRequestStatus = Schema.Literals(ContactRequestStatuses).annotate({
  description: "open until an operator closes it (ratings contacts close)"
})

/** The bounds of a request's fields, in characters. */
export const ContactLimits = {
  nameMax: 200,
  emailMax: 254,
  emailLocalMax: 64,
  emailDomainMax: 253,
  messageMax: 2000
} as const

/**
 * What a name may not hold: C0 and C1 controls (Cc), format characters (Cf:
 * zero-width space, joiners, word joiner, byte-order mark, the direction
 * marks, embeddings, overrides and isolates, soft hyphen, tags), lone
 * surrogates (Cs) and the line and paragraph separators (Zl, Zp).
 */
const ControlCharacters = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u

/**
 * What a message may not hold: the same, but for tab, line feed and carriage
 * return, and the zero-width joiner and non-joiner that emoji sequences and
 * some scripts need (they join, they neither hide text nor reorder it).
 */
const MessageControls = /(?![\t\n\r\u200C\u200D])[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u

/**
 * A character that shows: not whitespace, not a control, format, surrogate,
 * private-use or unassigned code point (C), not a separator (Z), not a
 * combining mark on its own (M), not a default-ignorable filler or variation
 * selector, not the blank braille pattern.
 */
const VisibleCharacter = /[^\p{White_Space}\p{C}\p{Z}\p{M}\p{Default_Ignorable_Code_Point}\u2800]/u

/** Whether `text` holds at least one character that shows. */
export const hasVisibleCharacter = (text: string): boolean => VisibleCharacter.test(text)

const Atom = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
const LocalPart = new RegExp(`^${Atom}(?:\\.${Atom})*$`, "u")
const Label = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/u
const TopLevel = /^(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9-]{1,59})$/u

/** Why `text` is not an e-mail address this service takes, or undefined when it is one. */
export const emailProblem = (text: string): string | undefined => {
  const at = text.lastIndexOf("@")
  if (at === -1 || text.indexOf("@") !== at) return "it must have exactly one @-sign"
  const local = text.slice(0, at)
  const domain = text.slice(at + 1)
  if (local === "") return "there must be something before the @-sign"
  if (local.length > ContactLimits.emailLocalMax)
    return `the part before the @-sign is longer than ${ContactLimits.emailLocalMax} characters`
  if (!LocalPart.test(local))
    return "the part before the @-sign holds a character that is not allowed, or a misplaced dot"
  if (domain.length > ContactLimits.emailDomainMax)
    return `the domain is longer than ${ContactLimits.emailDomainMax} characters`
  const labels = domain.split(".")
  if (labels.length < 2) return "the domain must have a dot, as in example.com"
  if (!labels.slice(0, -1).every((l) => Label.test(l)) || !TopLevel.test(labels.at(-1)!))
    return "the domain is not a valid domain name"
  return undefined
}

const EmailExample = "name@example.com"

export const ContactEmail = Schema.String.annotate({
  description: `The requester's e-mail address (${EmailExample}), at most ${ContactLimits.emailMax} characters`,
  format: "email"
}).check(
  Schema.isMaxLength(ContactLimits.emailMax).abort(),
  Schema.makeFilter((text: string) => {
    const problem = emailProblem(text)
    return problem === undefined || `value is not a valid email address: ${problem}`
  })
)

export const ContactEntityName = Schema.String.annotate({
  description:
    `The name of the entity to rate, 1 to ${ContactLimits.nameMax} characters with at least one visible, ` +
    "no control, zero-width or direction characters"
}).check(
  Schema.isMaxLength(ContactLimits.nameMax).abort(),
  Schema.makeFilter(
    (text: string) =>
      hasVisibleCharacter(text) || "must not be empty or only spaces: it needs at least one visible character"
  ),
  Schema.makeFilter(
    (text: string) =>
      !ControlCharacters.test(text) ||
      "must not contain control characters (line breaks, tabs, NUL, escapes), zero-width characters, " +
        "direction marks or overrides, or line and paragraph separators"
  )
)

export const ContactMessage = Schema.String.annotate({
  description: `A note for the operators, at most ${ContactLimits.messageMax} characters (line breaks allowed)`
}).check(
  Schema.isMaxLength(ContactLimits.messageMax).abort(),
  Schema.makeFilter(
    (text: string) =>
      !MessageControls.test(text) ||
      "must not contain control characters other than line breaks and tabs (NUL, escapes), zero-width " +
        "spaces, direction marks or overrides, or line and paragraph separators"
  )
)

/** POST /contacts body. */
export const ContactRequestCreate = Schema.Struct({
  protocol_name: ContactEntityName,
  contact_email: ContactEmail,
  request_type: Schema.optionalKey(ContactRequestType),
  message: Schema.optionalKey(Schema.NullOr(ContactMessage)),
  entity_type: Schema.optionalKey(
    Schema.NullOr(
      EntityType.annotate({
        description: "The entity's type, when the requester knows it: one of the seven rated types"
      })
    )
  )
})
export type ContactRequestCreate = typeof ContactRequestCreate.Type

/**
 * What a submission is answered, new or a repeat alike: what its sender sent
 * (never the message), the reference id of this submission, status open, and
 * when it was received.
 */
export const ContactReceipt = Schema.Struct({
  id: Uuid,
  protocol_name: Schema.String,
  entity_type: Schema.NullOr(EntityType),
  contact_email: Schema.String,
  request_type: ContactRequestType,
  status: ContactRequestStatus,
  created_at: IsoDateTime
})
export type ContactReceipt = typeof ContactReceipt.Type

/** A stored request as the operators see it: its first receipt, the message and when it was closed. */
export const ContactRequestRecord = Schema.Struct({
  ...ContactReceipt.fields,
  message: Schema.NullOr(Schema.String),
  closed_at: Schema.NullOr(IsoDateTime)
})
export type ContactRequestRecord = typeof ContactRequestRecord.Type

/**
 * One submission, as the service makes it from a body: stored as a new open
 * request under its `id` when it starts one, recorded as a receipt of the
 * open request it repeats otherwise.
 */
export type NewContactRequest = Omit<ContactRequestRecord, "status" | "closed_at">

/**
 * A stored request as `ratings contacts list` shows it: the record, and the
 * reference ids of every receipt answered for it, the request's own first
 * (an operator finds a request by any of them).
 */
export interface ContactRequestListed extends ContactRequestRecord {
  readonly receipt_ids: ReadonlyArray<string>
}

/**
 * What makes two requests the same while one is open: the entity name
 * without case or any whitespace (compatibility-normalised, so full-width
 * letters match), and the address without case.
 */
export const contactKeysOf = (request: {
  readonly protocol_name: string
  readonly contact_email: string
}): { readonly entity_key: string; readonly email_key: string } => ({
  entity_key: request.protocol_name.normalize("NFKC").replace(/\s+/gu, "").toLowerCase(),
  email_key: request.contact_email.trim().toLowerCase()
})

/** The receipt of a submission: only what it holds, whatever else is stored. */
export const receiptOf = (submission: NewContactRequest): ContactReceipt => ({
  id: submission.id,
  protocol_name: submission.protocol_name,
  entity_type: submission.entity_type,
  contact_email: submission.contact_email,
  request_type: submission.request_type,
  status: "open",
  created_at: submission.created_at
})
