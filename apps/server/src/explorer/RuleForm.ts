/**
 * The Webhooks tab's form that creates an alert rule: what a browser posts
 * (application/x-www-form-urlencoded: a name, the webhook URL, entity type and
 * event checkboxes, slugs as one line), read into the API's create body and
 * checked by the same schema (AlertRuleCreate), so the tab accepts exactly
 * what POST /api/v1/alert-rules accepts. A refusal names the field and says
 * why, and the form is drawn again with what was sent.
 */
import { locateIssues } from "@ratings/adapters-http/server/ErrorMapping"
import { AlertRuleCreate, AlertRuleLimits } from "@ratings/domain/model/AlertRule"
import { EntityTypes } from "@ratings/domain/model/EntityType"
import { AlertEventKinds } from "@ratings/domain/model/WebhookEvent"
import { el, type Node } from "./Dom.ts"
import { Result, Schema } from "effect"

/** The form as sent: every field a string or, for the checkboxes, the values ticked. */
export interface RuleFormInput {
  readonly name: string
  readonly webhook_url: string
  readonly entity_types: ReadonlyArray<string>
  readonly slugs: string
  readonly events: ReadonlyArray<string>
}

export type RuleField = keyof RuleFormInput

/** What is wrong, per field (the first problem of each). */
export type FieldErrors = { readonly [F in RuleField]?: string }

export const EmptyRuleForm: RuleFormInput = {
  name: "",
  webhook_url: "",
  entity_types: [],
  slugs: "",
  events: []
}

/** What a form body may hold of one field, so a pasted novel is not echoed back whole. */
const MaxFieldLength = 8192

const clip = (text: string): string => (text.length > MaxFieldLength ? text.slice(0, MaxFieldLength) : text)

/** The fields of a posted form (other fields are ignored). */
export const readRuleForm = (params: URLSearchParams): RuleFormInput => ({
  name: clip(params.get("name") ?? ""),
  webhook_url: clip(params.get("webhook_url") ?? ""),
  entity_types: params.getAll("entity_types").map(clip),
  slugs: clip(params.get("slugs") ?? ""),
  events: params.getAll("events").map(clip)
})

/** Slugs as typed: separated by commas, spaces or new lines. */
export const slugsOf = (text: string): Array<string> => text.split(/[\s,]+/u).filter((s) => s !== "")

/** The API's create body of the form: an empty name is no name, empty lists watch all. */
const bodyOf = (input: RuleFormInput) => ({
  ...(input.name.trim() === "" ? {} : { name: input.name.trim() }),
  entity_types: input.entity_types,
  slugs: slugsOf(input.slugs),
  events: input.events,
  channels: { webhook_url: input.webhook_url.trim() }
})

const FieldOfKey: { readonly [key: string]: RuleField } = {
  name: "name",
  channels: "webhook_url",
  entity_types: "entity_types",
  slugs: "slugs",
  events: "events"
}

const decodeCreate = Schema.decodeUnknownResult(AlertRuleCreate)

/** The message of a problem at an item of a list: which item, as typed. */
const itemMessage = (body: ReturnType<typeof bodyOf>, path: ReadonlyArray<PropertyKey>, msg: string) => {
  const [key, index] = path
  if (typeof index !== "number") return msg
  const items = (body as unknown as { readonly [k: string]: ReadonlyArray<unknown> })[String(key)]
  return `${JSON.stringify(items?.[index])}: ${msg}`
}

/** The create body, or what is wrong with each field. */
export const decodeRuleForm = (input: RuleFormInput): Result.Result<AlertRuleCreate, FieldErrors> => {
  const body = bodyOf(input)
  if (body.channels.webhook_url === "") return Result.fail({ webhook_url: "A webhook URL is required." })
  const decoded = decodeCreate(body, { errors: "all" })
  if (Result.isSuccess(decoded)) return decoded
  const errors: { [F in RuleField]?: string } = {}
  for (const located of locateIssues(decoded.failure.issue, true)) {
    const field = FieldOfKey[String(located.path[0])] ?? "webhook_url"
    errors[field] ??= itemMessage(body, located.path, located.msg)
  }
  return Result.fail(errors)
}

// ----------------------------------------------------------------- the form

const errorId = (field: RuleField) => `${field}-error`

/** The field's problem under it, tied to the control by aria-describedby. */
const problem = (errors: FieldErrors, field: RuleField): Node | null =>
  errors[field] === undefined
    ? null
    : el("p", { id: errorId(field), class: "field-error", role: "alert" }, errors[field])

const described = (errors: FieldErrors, field: RuleField) =>
  errors[field] === undefined ? {} : { "aria-describedby": errorId(field), "aria-invalid": "true" }

const textField = (
  input: RuleFormInput,
  errors: FieldErrors,
  field: "name" | "webhook_url" | "slugs",
  label: string,
  hint: string,
  extra: Record<string, string | boolean>
) =>
  el(
    "div",
    { class: "field" },
    el("label", { for: `rule-${field}` }, label),
    el("input", {
      id: `rule-${field}`,
      name: field,
      type: "text",
      value: input[field],
      autocomplete: "off",
      ...extra,
      ...described(errors, field)
    }),
    el("p", { class: "hint" }, hint),
    problem(errors, field)
  )

const checkboxes = (
  input: RuleFormInput,
  errors: FieldErrors,
  field: "entity_types" | "events",
  legend: string,
  values: ReadonlyArray<string>
) =>
  el(
    "fieldset",
    { class: "field", ...described(errors, field) },
    el("legend", null, legend),
    ...values.map((value) =>
      el(
        "label",
        { class: "check" },
        el("input", {
          type: "checkbox",
          name: field,
          value,
          checked: input[field].includes(value)
        }),
        ` ${value}`
      )
    ),
    problem(errors, field)
  )

/** The create form, filled with `input`, each field's problem under it. */
export const ruleForm = (props: { readonly input: RuleFormInput; readonly errors: FieldErrors }): Node => {
  const { input, errors } = props
  return el(
    "form",
    { id: "rule-form", method: "post", action: "/webhooks/rules", novalidate: true },
    textField(input, errors, "webhook_url", "Webhook URL", "An https URL that receives the signed POSTs.", {
      required: true,
      inputmode: "url",
      placeholder: "https://example.com/hooks/ratings"
    }),
    textField(input, errors, "name", "Name (optional)", "A label for you; at most 200 characters.", {
      maxlength: "200"
    }),
    checkboxes(input, errors, "entity_types", "Entity types (none ticked: all)", EntityTypes),
    textField(
      input,
      errors,
      "slugs",
      "Entity slugs (optional)",
      `Separated by commas or spaces, at most ${AlertRuleLimits.slugsPerRule}; empty: every entity.`,
      { placeholder: "aave-v3, lido" }
    ),
    checkboxes(input, errors, "events", "Events (none ticked: all)", AlertEventKinds),
    el("button", { type: "submit", class: "primary" }, "Create rule")
  )
}
