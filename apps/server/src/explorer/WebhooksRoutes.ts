/**
 * The routes of the explorer's Webhooks tab: GET /webhooks (the tab, `log`
 * for a rule's delivery log), POST /webhooks/rules (create: the page with the
 * signing key, this once), POST /webhooks/rules/{id}/delete and POST
 * /webhooks/deliveries/{id}/refire (a 303 back with a notice), and GET
 * /dashboard, the tab's old address (308). The caller is the explorer's
 * (Session.ts: the one admission step); every POST must come from this
 * origin (403). Every answer is no-store: it is one account's live state,
 * and the create's answer holds a secret.
 */
import { callerKind } from "@ratings/domain/model/Caller"
import { AlertRuleService } from "@ratings/domain/services/AlertRuleService"
import { Effect, Layer } from "effect"
import { HttpRouter, type HttpServerRequest, HttpServerResponse } from "effect/http"
import type { Node } from "./Dom.ts"
import { bytesOf, pageResponse } from "./Html.ts"
import { Layout, type Viewer } from "./Layout.ts"
import type { ExplorerSettings } from "./Pages.ts"
import { readRuleForm } from "./RuleForm.ts"
import { droppedKeyCookie, enter, overHttps, sameOrigin } from "./Session.ts"
import {
  accessOf,
  createRule,
  deleteRule,
  enableRule,
  type Outcome,
  refireDelivery,
  type Scope,
  showTab
} from "./WebhooksActions.ts"
import { WebhooksPath, WebhooksTitle, webhooksContent, webhooksRefused } from "./WebhooksPage.ts"

/** The old address of the failed-deliveries view. */
export const DashboardPath = "/dashboard"

const NoStore = { "cache-control": "no-store" }

interface Tab {
  readonly settings: ExplorerSettings
  readonly rules: AlertRuleService["Service"]
}

const page = (tab: Tab, viewer: Viewer, status: number, content: Node, message?: string, headers = {}) =>
  pageResponse(
    bytesOf(
      Layout({
        branding: tab.settings.branding,
        viewer,
        title: WebhooksTitle,
        section: WebhooksPath,
        notice: message,
        children: content
      })
    ),
    status,
    { ...headers, ...NoStore }
  )

const answer = (tab: Tab, viewer: Viewer, outcome: Outcome) =>
  outcome._tag === "Redirected"
    ? HttpServerResponse.empty({ status: 303, headers: { location: outcome.location, ...NoStore } })
    : page(tab, viewer, outcome.status, webhooksContent(outcome.view))

type Use = (scope: Scope, request: HttpServerRequest.HttpServerRequest) => Effect.Effect<Outcome>

/**
 * One request of the tab: the explorer's admission (a key it refuses is
 * dropped from the cookie), then for a POST the origin check (403), then the
 * API's tier rule (401 not signed in, 403 below Pro); `use` runs in the
 * account of a caller that may use alert rules.
 */
const tabRequest =
  (tab: Tab, post: boolean) => (use: Use) => (request: HttpServerRequest.HttpServerRequest) =>
    Effect.gen(function* () {
      const { settings } = tab
      const entry = yield* enter(settings.services, request)
      if (entry._tag === "TurnedAway") {
        const drop = entry.dropCookie
          ? { "set-cookie": droppedKeyCookie(overHttps(request, settings.trustedHops)) }
          : {}
        const content = webhooksRefused("sign_in", "anonymous")
        return page(tab, { kind: "anonymous" }, entry.status, content, entry.message, drop)
      }
      const viewer: Viewer = { kind: callerKind(entry.caller) }
      if (post && !sameOrigin(request, settings.trustedHops)) {
        const why = "This form was sent from another site, so it was not accepted: nothing was changed."
        return page(tab, viewer, 403, webhooksRefused("sign_in", viewer.kind), why)
      }
      const access = accessOf(settings.services.projection, entry.caller)
      if (access._tag === "Closed")
        return page(tab, viewer, access.status, webhooksRefused(access.refusal, access.tier))
      return answer(tab, viewer, yield* use({ rules: tab.rules, account: access.account }, request))
    })

/** The posted form's fields; a body that is not a form (or cannot be read) counts as an empty form. */
const formOf = (request: HttpServerRequest.HttpServerRequest) =>
  request.text.pipe(
    Effect.map((text) =>
      request.headers["content-type"]?.toLowerCase().startsWith("application/x-www-form-urlencoded") === true
        ? new URLSearchParams(text)
        : new URLSearchParams()
    ),
    Effect.orElseSucceed(() => new URLSearchParams())
  )

const queryOf = (request: HttpServerRequest.HttpServerRequest) => {
  const params = new URL(request.url, "http://explorer.invalid").searchParams
  const one = (name: string) => params.get(name) ?? undefined
  return { log: one("log"), refired: one("refired"), deleted: one("deleted"), enabled: one("enabled") }
}

/** The segment of a path `/webhooks/{kind}/{id}/{action}`. */
const idOf = (request: HttpServerRequest.HttpServerRequest): string =>
  new URL(request.url, "http://explorer.invalid").pathname.split("/")[3] ?? ""

const routesOf = (tab: Tab) => {
  const get = tabRequest(tab, false)
  const post = tabRequest(tab, true)
  return Layer.mergeAll(
    HttpRouter.add(
      "GET",
      DashboardPath,
      HttpServerResponse.empty({ status: 308, headers: { location: WebhooksPath } })
    ),
    HttpRouter.add(
      "GET",
      WebhooksPath,
      get((scope, request) => showTab(scope, queryOf(request)))
    ),
    HttpRouter.add(
      "POST",
      `${WebhooksPath}/rules`,
      post((scope, request) =>
        Effect.flatMap(formOf(request), (form) => createRule(scope, readRuleForm(form)))
      )
    ),
    HttpRouter.add(
      "POST",
      `${WebhooksPath}/rules/:rule_id/delete`,
      post((scope, request) => deleteRule(scope, idOf(request)))
    ),
    HttpRouter.add(
      "POST",
      `${WebhooksPath}/rules/:rule_id/enable`,
      post((scope, request) => enableRule(scope, idOf(request)))
    ),
    HttpRouter.add(
      "POST",
      `${WebhooksPath}/deliveries/:delivery_id/refire`,
      post((scope, request) => refireDelivery(scope, idOf(request)))
    )
  )
}

/** The tab's routes, over the explorer's settings and the server's alert-rule use cases (the API's). */
export const webhooksRoutes = (settings: ExplorerSettings) =>
  Layer.unwrap(
    Effect.gen(function* () {
      const rules = yield* AlertRuleService
      return routesOf({ settings, rules })
    })
  )
