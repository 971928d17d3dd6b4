/**
 * What the Webhooks tab does for an account, on the API's own use cases
 * (AlertRuleService) and tier rule (the projection's `alert_rules`
 * capability): gather the view, create, delete, enable, re-fire. Each outcome is
 * data the routes turn into a page or a redirect: a refusal carries its
 * status and message (another account's rule or delivery is "not found",
 * as on the API), never an exception, so bad input is never a 500.
 */
import type { TierProjection } from "@ratings/domain/access/Projection"
import type { AlertRuleCreated } from "@ratings/domain/model/AlertRule"
import { type Caller, callerKind } from "@ratings/domain/model/Caller"
import { Uuid } from "@ratings/domain/model/Primitives"
import type { AlertRuleService } from "@ratings/domain/services/AlertRuleService"
import { accountOf } from "@ratings/domain/services/ExportService"
import { Effect, Result, Schema } from "effect"
import { decodeRuleForm, EmptyRuleForm, type FieldErrors, type RuleFormInput } from "./RuleForm.ts"
import type { WebhooksNotice, WebhooksRefusal, WebhooksView } from "./WebhooksPage.ts"

/** How many failed deliveries and log entries the tab lists (the API's default page). */
export const ListedDeliveries = 50

const isUuid = Schema.is(Uuid)

/** The account a caller works in, or why the tab is closed to them (401 not signed in, 403 below Pro). */
export type Access =
  | { readonly _tag: "Account"; readonly account: string }
  | {
      readonly _tag: "Closed"
      readonly refusal: WebhooksRefusal
      readonly status: 401 | 403
      readonly tier: string
    }

/** The API's rule for alert rules: the projection's `alert_rules` capability, in the caller's account. */
export const accessOf = (projection: TierProjection, caller: Caller): Access => {
  const account = accountOf(caller)
  if (Result.isSuccess(projection.authorize(caller, "alert_rules")) && account !== undefined)
    return { _tag: "Account", account }
  const tier = callerKind(caller)
  return tier === "anonymous"
    ? { _tag: "Closed", refusal: "sign_in", status: 401, tier }
    : { _tag: "Closed", refusal: "tier", status: 403, tier }
}

/** The alert-rule use cases, and the account they work in. */
export interface Scope {
  readonly rules: AlertRuleService["Service"]
  readonly account: string
}

/** A page to draw: its status and what it shows. */
export interface Shown {
  readonly _tag: "Shown"
  readonly status: number
  readonly view: WebhooksView
}

/** A redirect back to the tab (303), with the notice it shows in its query. */
export interface Redirected {
  readonly _tag: "Redirected"
  readonly location: string
}

export type Outcome = Shown | Redirected

/** What GET /webhooks asks for beside the tab itself. */
export interface TabQuery {
  readonly log?: string | undefined
  readonly refired?: string | undefined
  readonly deleted?: string | undefined
  readonly enabled?: string | undefined
}

const noticeOf = (query: TabQuery): WebhooksNotice | undefined => {
  if (query.refired !== undefined && isUuid(query.refired))
    return {
      kind: "ok",
      text: `Re-fired delivery ${query.refired}: it is pending again and will be sent within seconds.`
    }
  if (query.deleted !== undefined && isUuid(query.deleted))
    return { kind: "ok", text: `Deleted rule ${query.deleted}: nothing more is sent to it.` }
  if (query.enabled !== undefined && isUuid(query.enabled))
    return {
      kind: "ok",
      text:
        `Enabled rule ${query.enabled}: its events are sent again, and what failed while its endpoint ` +
        "was down was re-fired."
    }
  return undefined
}

interface Extras {
  readonly notice?: WebhooksNotice | undefined
  readonly form?: { readonly input: RuleFormInput; readonly errors: FieldErrors } | undefined
  readonly created?: AlertRuleCreated | undefined
}

/** The tab of an account: its rules and failed deliveries, and what `extras` adds. */
const viewOf = ({ rules, account }: Scope, extras: Extras = {}) =>
  Effect.gen(function* () {
    const listed = yield* rules.list(account)
    const failed = yield* rules.failed(account, { limit: ListedDeliveries })
    return {
      rules: listed.items,
      failed,
      notice: extras.notice,
      form: extras.form ?? { input: EmptyRuleForm, errors: {} },
      created: extras.created
    } satisfies WebhooksView
  })

const shown = (status: number, view: WebhooksView): Shown => ({ _tag: "Shown", status, view })

const refusedWith = (scope: Scope, status: number, text: string, extras: Extras = {}) =>
  Effect.map(viewOf(scope, { ...extras, notice: { kind: "error", text } }), (view) => shown(status, view))

const NotCreated = "The rule was not created: see what is wrong below."

/** GET /webhooks: the tab, with a rule's delivery log when `log` names one of the account's. */
export const showTab = (scope: Scope, query: TabQuery) =>
  Effect.gen(function* () {
    const base = yield* viewOf(scope, { notice: noticeOf(query) })
    if (query.log === undefined) return shown(200, base)
    const rule = isUuid(query.log) ? base.rules.find((r) => r.id === query.log) : undefined
    if (rule === undefined) {
      const text = isUuid(query.log)
        ? "No such alert rule in this account: its delivery log cannot be shown."
        : "The log parameter must be the id (a UUID) of one of your alert rules."
      return shown(isUuid(query.log) ? 404 : 400, { ...base, notice: { kind: "error", text } })
    }
    const deliveries = yield* scope.rules
      .deliveries(scope.account, rule.id, { limit: ListedDeliveries })
      .pipe(Effect.orElseSucceed(() => []))
    return shown(200, { ...base, log: { rule, deliveries } })
  })

/** POST /webhooks/rules: the rule and, in this answer only, its key; or the form again with what is wrong. */
export const createRule = (scope: Scope, input: RuleFormInput) =>
  Effect.gen(function* () {
    const decoded = decodeRuleForm(input)
    if (Result.isFailure(decoded))
      return yield* refusedWith(scope, 400, NotCreated, { form: { input, errors: decoded.failure } })
    const created = yield* Effect.result(scope.rules.create(scope.account, decoded.success))
    if (Result.isSuccess(created)) {
      const notice: WebhooksNotice = { kind: "ok", text: `Created rule ${created.success.id}.` }
      return shown(201, yield* viewOf(scope, { notice, created: created.success }))
    }
    const failure = created.failure
    const form = { input, errors: {} }
    switch (failure._tag) {
      case "WebhookUrlRejected":
        return yield* refusedWith(scope, 400, NotCreated, {
          form: { input, errors: { webhook_url: `${failure.message}.` } }
        })
      case "AlertRuleLimitReached":
        return yield* refusedWith(scope, 409, `The rule was not created: ${failure.message}.`, { form })
      default:
        return yield* refusedWith(scope, 503, "The rule was not created: the store is unavailable.", { form })
    }
  })

/** POST /webhooks/rules/{id}/delete: back to the tab, or 404 for a rule that is not the account's. */
export const deleteRule = (scope: Scope, ruleId: string) =>
  Effect.gen(function* () {
    const deleted = isUuid(ruleId)
      ? yield* Effect.result(scope.rules.delete(scope.account, ruleId))
      : undefined
    if (deleted !== undefined && Result.isSuccess(deleted))
      return { _tag: "Redirected", location: `/webhooks?deleted=${ruleId}` } satisfies Redirected
    return yield* refusedWith(scope, 404, "No such alert rule in this account: nothing was deleted.")
  })

/** POST /webhooks/deliveries/{id}/refire: back to the tab; 404 for another's, 409 for one not failed. */
export const refireDelivery = (scope: Scope, deliveryId: string) =>
  Effect.gen(function* () {
    if (!isUuid(deliveryId))
      return yield* refusedWith(scope, 404, "No such delivery in this account: nothing was re-fired.")
    const refired = yield* Effect.result(scope.rules.refire(scope.account, deliveryId))
    if (Result.isSuccess(refired))
      return { _tag: "Redirected", location: `/webhooks?refired=${deliveryId}` } satisfies Redirected
    const failure = refired.failure
    return failure._tag === "DeliveryNotFailed"
      ? yield* refusedWith(scope, 409, `Not re-fired: ${failure.message}.`)
      : yield* refusedWith(scope, 404, "No such delivery in this account: nothing was re-fired.")
  })

/** POST /webhooks/rules/{id}/enable: the endpoint enabled, what failed meanwhile re-fired; 404 for another's. */
export const enableRule = (scope: Scope, ruleId: string) =>
  Effect.gen(function* () {
    const enabled = isUuid(ruleId)
      ? yield* Effect.result(scope.rules.enable(scope.account, ruleId, { refire: true }))
      : undefined
    if (enabled !== undefined && Result.isSuccess(enabled))
      return { _tag: "Redirected", location: `/webhooks?enabled=${ruleId}` } satisfies Redirected
    return yield* refusedWith(scope, 404, "No such alert rule in this account: nothing was enabled.")
  })
