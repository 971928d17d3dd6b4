/**
 * The tables of the Webhooks tab: the account's failed deliveries, each with
 * a re-fire form; its alert rules with their endpoint's state (disabled: when,
 * why, and an enable form), a link to the delivery log and a delete form;
 * one rule's delivery log with every attempt; and the panel that shows a new
 * rule's signing key, the one time it is shown. Plain forms
 * that POST to the explorer's routes, so all of it works with JavaScript off.
 * Every value is text given to the renderer, which escapes it.
 */
import type { AlertRule, AlertRuleCreated } from "@ratings/domain/model/AlertRule"
import type { Delivery, DeliveryAttempt, DeliveryWithAttempts } from "@ratings/domain/model/Delivery"
import { scrollTable } from "./Components.ts"
import { el, type Node } from "./Dom.ts"

/** A stored time, readable and the same for every reader: `2026-11-29 08:48 UTC`, the ISO form as its datetime. */
export const when = (iso: string | null): Node | string =>
  iso === null ? "—" : el("time", { datetime: iso }, `${iso.slice(0, 16).replace("T", " ")} UTC`)

/** A delivery's status, in words (never by colour alone). */
const statusBadge = (status: string): Node => el("span", { class: `status status-${status}` }, status)

/** How a rule is named in the tables: its name, else its URL. */
export const ruleLabel = (rule: Pick<AlertRule, "name" | "channels">): string =>
  rule.name ?? rule.channels.webhook_url

const table = (titleId: string, head: ReadonlyArray<string>, bodyId: string, rows: ReadonlyArray<Node>) =>
  scrollTable(
    { labelledBy: titleId },
    el(
      "table",
      null,
      el("thead", null, el("tr", null, ...head.map((label) => el("th", { scope: "col" }, label)))),
      el("tbody", { id: bodyId }, ...rows)
    )
  )

/** A one-button form to an explorer route (re-fire, delete), with a label that says what it acts on. */
const actionForm = (action: string, label: string, className: string, described: string) =>
  el(
    "form",
    { method: "post", action, class: "inline" },
    el("button", { type: "submit", class: className, "aria-label": described }, label)
  )

const failedRow = (delivery: Delivery, rules: ReadonlyMap<string, AlertRule>) => {
  const rule = rules.get(delivery.rule_id)
  return el(
    "tr",
    { "data-delivery-id": delivery.delivery_id, "data-status": delivery.status },
    el("td", null, el("code", null, delivery.delivery_id)),
    el("td", null, rule === undefined ? delivery.rule_id : ruleLabel(rule)),
    el("td", null, delivery.event),
    el("td", { "data-field": "status" }, statusBadge(delivery.status)),
    el("td", null, String(delivery.attempts)),
    el("td", null, delivery.last_error ?? "—"),
    el("td", null, when(delivery.created_at)),
    el(
      "td",
      null,
      actionForm(
        `/webhooks/deliveries/${delivery.delivery_id}/refire`,
        "Re-fire",
        "refire",
        `Re-fire delivery ${delivery.delivery_id}`
      )
    )
  )
}

/** The failed deliveries, newest first, each with its re-fire form. */
export const failedDeliveries = (props: {
  readonly failed: ReadonlyArray<Delivery>
  readonly rules: ReadonlyArray<AlertRule>
}): Node => {
  const byId = new Map(props.rules.map((r) => [r.id, r]))
  return el(
    "section",
    { id: "watchlist", "aria-labelledby": "watchlist-title" },
    el("h2", { id: "watchlist-title" }, "Failed deliveries"),
    el(
      "p",
      { class: "lead" },
      "Deliveries that failed after every retry are listed here and are never replayed automatically. " +
        "Re-fire one once its receiver is fixed: it keeps its delivery_id, so receivers that dedupe on it stay correct."
    ),
    props.failed.length === 0
      ? el("p", { id: "no-failed", class: "muted" }, "No failed deliveries.")
      : table(
          "watchlist-title",
          ["Delivery", "Rule", "Event", "Status", "Attempts", "Last error", "Created", "Action"],
          "failed-rows",
          props.failed.map((d) => failedRow(d, byId))
        )
  )
}

const watches = (rule: AlertRule): string =>
  [
    rule.entity_types.length > 0 ? rule.entity_types.join(", ") : "all types",
    rule.slugs.length > 0 ? rule.slugs.join(", ") : "all entities",
    rule.events.length > 0 ? rule.events.join(", ") : "all events"
  ].join(" · ")

/** The endpoint's health in words: active, failing since when, or disabled when and why. */
const ruleState = (rule: AlertRule): Node =>
  rule.disabled
    ? el(
        "div",
        { "data-field": "state" },
        statusBadge("disabled"),
        " since ",
        when(rule.disabled_at),
        el("p", { class: "muted", "data-field": "disabled-reason" }, rule.disabled_reason ?? "")
      )
    : rule.failing_since === null
      ? el("div", { "data-field": "state" }, statusBadge("active"))
      : el(
          "div",
          { "data-field": "state" },
          statusBadge("active"),
          " failing since ",
          when(rule.failing_since)
        )

const ruleRow = (rule: AlertRule) =>
  el(
    "tr",
    { "data-rule-id": rule.id, "data-state": rule.disabled ? "disabled" : "active" },
    el("td", null, rule.name ?? el("code", null, rule.id)),
    el("td", null, el("code", null, rule.channels.webhook_url)),
    el("td", null, watches(rule)),
    el("td", null, ruleState(rule)),
    el("td", null, when(rule.created_at)),
    el(
      "td",
      { class: "actions" },
      ...(rule.disabled
        ? [
            actionForm(
              `/webhooks/rules/${rule.id}/enable`,
              "Enable and re-fire",
              "enable",
              `Enable rule ${ruleLabel(rule)} and re-fire what failed while it was down`
            )
          ]
        : []),
      el(
        "a",
        {
          class: "log-link",
          href: `/webhooks?log=${rule.id}#log`,
          "aria-label": `Delivery log of ${ruleLabel(rule)}`
        },
        "Delivery log"
      ),
      actionForm(`/webhooks/rules/${rule.id}/delete`, "Delete", "delete", `Delete rule ${ruleLabel(rule)}`)
    )
  )

/** The account's rules, oldest first; signing keys are never listed. */
export const rulesTable = (props: { readonly rules: ReadonlyArray<AlertRule> }): Node =>
  el(
    "section",
    { id: "rules", "aria-labelledby": "rules-title" },
    el("h2", { id: "rules-title" }, "Alert rules"),
    props.rules.length === 0
      ? el("p", { id: "no-rules", class: "muted" }, "No alert rules yet: create one with the form below.")
      : table(
          "rules-title",
          ["Rule", "Webhook URL", "Watches", "State", "Created", "Actions"],
          "rule-rows",
          props.rules.map(ruleRow)
        )
  )

const attemptText = (a: DeliveryAttempt): string =>
  `${a.started_at.slice(0, 19).replace("T", " ")} UTC, ${a.outcome}` +
  `${a.status_code === null ? "" : ` ${a.status_code}`}, ${a.duration_ms} ms` +
  `${a.error === null ? "" : ` (${a.error})`}`

const logRow = (d: DeliveryWithAttempts) =>
  el(
    "tr",
    { "data-delivery-id": d.delivery_id, "data-status": d.status },
    el("td", null, el("code", null, d.delivery_id)),
    el("td", null, d.event),
    el("td", null, statusBadge(d.status)),
    el(
      "td",
      null,
      d.attempt_log.length === 0
        ? "not attempted yet"
        : el("ol", { class: "attempts" }, ...d.attempt_log.map((a) => el("li", null, attemptText(a))))
    ),
    el("td", null, when(d.next_attempt_at))
  )

/** One rule's deliveries, newest first, each with its attempts (started, outcome, status, duration). */
export const deliveryLog = (props: {
  readonly rule: AlertRule
  readonly deliveries: ReadonlyArray<DeliveryWithAttempts>
}): Node =>
  el(
    "section",
    { id: "log", "aria-labelledby": "log-title" },
    el("h2", { id: "log-title" }, "Delivery log of ", el("span", { id: "log-rule" }, ruleLabel(props.rule))),
    props.deliveries.length === 0
      ? el("p", { class: "muted" }, "Nothing delivered to this rule yet.")
      : table(
          "log-title",
          ["Delivery", "Event", "Status", "Attempts (started, outcome, status, duration)", "Next attempt"],
          "log-rows",
          props.deliveries.map(logRow)
        )
  )

/** The new rule and its signing key: shown in this answer only, never again. */
export const keyOnce = (props: { readonly created: AlertRuleCreated }): Node =>
  el(
    "section",
    { id: "created", class: "key-once", "aria-labelledby": "created-title" },
    el("h2", { id: "created-title" }, "Rule created: store its signing key now"),
    el(
      "p",
      null,
      "This is the only time the key is shown. Receivers check each webhook's signature with it; " +
        "if it is lost, delete the rule and create a new one."
    ),
    el("p", null, el("code", { id: "signing-key" }, props.created.webhook_signing_key)),
    el(
      "p",
      { class: "muted" },
      "Rule ",
      el("code", null, props.created.id),
      " delivers to ",
      props.created.channels.webhook_url
    )
  )

/** A notice at the top of the tab: what was just done, or why it was not. */
export const notice = (kind: "ok" | "error", text: string): Node =>
  el("div", { id: "message", class: `message ${kind}`, role: kind === "error" ? "alert" : "status" }, text)
