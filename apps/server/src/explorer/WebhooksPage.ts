/**
 * The Webhooks tab's content: for a Pro or Enterprise account, the failed
 * deliveries with re-fire, the alert rules with their delivery logs and
 * delete, the create form, and, in the answer to a create only, the new
 * rule's signing key; for anyone else, why the tab is closed to them and how
 * to open it. Pure: a view in, a tree out; the routes gather the view.
 */
import type { AlertRule, AlertRuleCreated } from "@ratings/domain/model/AlertRule"
import type { Delivery, DeliveryWithAttempts } from "@ratings/domain/model/Delivery"
import { el, type Node } from "./Dom.ts"
import { type FieldErrors, ruleForm, type RuleFormInput } from "./RuleForm.ts"
import { deliveryLog, failedDeliveries, keyOnce, notice, rulesTable } from "./WebhookTables.ts"

export const WebhooksPath = "/webhooks"
export const WebhooksTitle = "Webhooks"

export interface WebhooksNotice {
  readonly kind: "ok" | "error"
  readonly text: string
}

/** What the tab shows a Pro or Enterprise account. */
export interface WebhooksView {
  readonly failed: ReadonlyArray<Delivery>
  readonly rules: ReadonlyArray<AlertRule>
  readonly log?:
    | { readonly rule: AlertRule; readonly deliveries: ReadonlyArray<DeliveryWithAttempts> }
    | undefined
  readonly notice?: WebhooksNotice | undefined
  readonly form: { readonly input: RuleFormInput; readonly errors: FieldErrors }
  /** The rule just created, with its key: only in the answer to the create. */
  readonly created?: AlertRuleCreated | undefined
}

const heading = () =>
  el(
    "header",
    { class: "page-head" },
    el("h1", null, WebhooksTitle),
    el(
      "p",
      { class: "lead" },
      "Your alert rules, their signed webhook deliveries, and the deliveries that failed. " +
        "The same rules and deliveries as /api/v1/alert-rules and /api/v1/deliveries."
    )
  )

/** The tab for an account that may use alert rules. */
export const webhooksContent = (view: WebhooksView): Node =>
  el(
    "div",
    { id: "webhooks" },
    heading(),
    view.notice === undefined ? null : notice(view.notice.kind, view.notice.text),
    view.created === undefined ? null : keyOnce({ created: view.created }),
    failedDeliveries({ failed: view.failed, rules: view.rules }),
    rulesTable({ rules: view.rules }),
    view.log === undefined ? null : deliveryLog(view.log),
    el(
      "section",
      { id: "create", "aria-labelledby": "create-title" },
      el("h2", { id: "create-title" }, "Create an alert rule"),
      el(
        "p",
        { class: "lead" },
        "A rule watches what all its filters admit and sends each matching event, signed, to its URL. " +
          "Saving it sends a webhook.test event at once."
      ),
      ruleForm(view.form)
    )
  )

/** Why the tab is closed: not signed in (401) or a tier below Pro (403). */
export type WebhooksRefusal = "sign_in" | "tier"

const TierWords: { readonly [tier: string]: string } = { anonymous: "anonymous", free: "Free" }

/**
 * The closed tab: what it needs, said plainly, and where to sign in (the
 * explorer's sign-in form is in every page's header; /sign-in is its page).
 */
export const webhooksRefused = (refusal: WebhooksRefusal, tier: string): Node =>
  el(
    "div",
    { id: "webhooks" },
    heading(),
    notice(
      "error",
      refusal === "sign_in"
        ? "Sign in with a Pro or Enterprise key to see your webhooks: failed deliveries, alert rules and their logs."
        : `Sign in with a Pro or Enterprise key: alert rules and webhooks are not part of the ${TierWords[tier] ?? tier} tier.`
    ),
    el(
      "p",
      null,
      el("a", { href: "/sign-in" }, "Sign in"),
      " with an API key of the Pro or Enterprise tier. The same key works as a bearer token on ",
      el("code", null, "/api/v1/alert-rules"),
      "."
    )
  )
