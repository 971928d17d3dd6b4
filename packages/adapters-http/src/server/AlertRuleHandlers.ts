/**
 * Handlers of the alert-rule and delivery routes. The tier comes from the
 * domain's table (`alert_rules` needs Pro), read through the `Projection` in
 * context when the handlers are built; ownership, the signing key served
 * once, URL validation and the delivery state machine are AlertRuleService's.
 * Here the caller becomes an account, errors become their statuses, and
 * responses are `no-store`: they are one account's live state, which its own
 * requests change, and the private cache of keyed reads would show the
 * dashboard a list from before the change it just made.
 */
import { Projection, type TierProjection } from "@ratings/domain/access/Projection"
import type { AlertRuleCreate } from "@ratings/domain/model/AlertRule"
import type { Caller } from "@ratings/domain/model/Caller"
import { AlertRuleService } from "@ratings/domain/services/AlertRuleService"
import type { WebhookUrlRejected } from "@ratings/domain/webhooks/WebhookTargetPolicy"
import { accountOf } from "@ratings/domain/services/ExportService"
import { Effect } from "effect"
import { HttpEffect, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { AlertRuleLimitError, DeliveryListLimit, DeliveryNotFailedError } from "../api/AlertRulesApi.ts"
import { RatingsApi } from "../api/Api.ts"
import { NotFoundError, ValidationError } from "../api/Errors.ts"
import { NoStore } from "./Caching.ts"
import { currentCaller } from "./EntityHandlers.ts"
import { mapReadErrors } from "./ErrorMapping.ts"

/** The account whose rules a caller works with: its key's, or `admin:<subject>` for an admin JWT. */
const accountOfPro = (projection: TierProjection, caller: Caller) =>
  mapReadErrors(Effect.fromResult(projection.authorize(caller, "alert_rules"))).pipe(
    // Every caller that holds the capability is a key or an admin, and both have an account.
    Effect.map(() => accountOf(caller)!)
  )

/** Registers `Cache-Control: no-store` for this request's response, whatever the caching policy set before. */
const noStore = HttpEffect.appendPreResponseHandler((_, response) =>
  Effect.succeed(HttpServerResponse.setHeader(response, "cache-control", NoStore))
)

const notFound = () => Effect.fail(NotFoundError.instance)

/** Runs `use` for the caller's account, answering no-store; the tier is the projection's. */
const accountScope = (projection: TierProjection) => {
  const ofPro = (caller: Caller) => accountOfPro(projection, caller)
  return <A, E, R>(
    request: HttpServerRequest.HttpServerRequest,
    use: (account: string) => Effect.Effect<A, E, R>
  ) =>
    Effect.gen(function* () {
      yield* noStore
      const account = yield* Effect.flatMap(currentCaller(request), ofPro)
      return yield* use(account)
    }).pipe(Effect.provideService(HttpServerRequest.HttpServerRequest, request))
}

/** A rejected webhook URL as a 422 on the field, with the reason for clients that branch on why. */
const urlRejected = (url: string) => (rejected: WebhookUrlRejected) =>
  Effect.fail(
    new ValidationError({
      detail: [
        {
          type: "value_error",
          loc: ["body", "channels", "webhook_url"],
          msg: rejected.message,
          input: url,
          // https_required, private_target, ...: for clients that branch on why.
          ctx: { reason: rejected.reason }
        }
      ]
    })
  )

const create = (rules: AlertRuleService["Service"], account: string, payload: AlertRuleCreate) =>
  rules.create(account, payload).pipe(
    Effect.catchTag("WebhookUrlRejected", urlRejected(payload.channels.webhook_url)),
    Effect.catchTag("AlertRuleLimitReached", (full) =>
      Effect.fail(new AlertRuleLimitError({ detail: full.message, limit: full.limit }))
    ),
    mapReadErrors
  )

const refire = (rules: AlertRuleService["Service"], account: string, deliveryId: string) =>
  rules.refire(account, deliveryId).pipe(
    Effect.catchTags({
      DeliveryNotFound: notFound,
      AlertRuleNotFound: notFound,
      DeliveryNotFailed: (e) =>
        Effect.fail(
          new DeliveryNotFailedError({ detail: e.message, delivery_id: e.delivery_id, status: e.status })
        )
    })
  )

export const AlertRuleHandlers = HttpApiBuilder.group(
  RatingsApi,
  "alertRules",
  Effect.fnUntraced(function* (handlers) {
    const rules = yield* AlertRuleService
    const forAccount = accountScope(yield* Projection)
    return handlers
      .handle("list", ({ request }) => forAccount(request, (account) => rules.list(account)))
      .handle("create", ({ payload, request }) =>
        forAccount(request, (account) => create(rules, account, payload))
      )
      .handle("delete", ({ params, request }) =>
        forAccount(request, (account) =>
          rules.delete(account, params.rule_id).pipe(Effect.catchTag("AlertRuleNotFound", notFound))
        )
      )
      .handle("testWebhook", ({ params, request }) =>
        forAccount(request, (account) =>
          rules.testWebhook(account, params.rule_id).pipe(Effect.catchTag("AlertRuleNotFound", notFound))
        )
      )
      .handle("deliveries", ({ params, query, request }) =>
        forAccount(request, (account) =>
          rules.deliveries(account, params.rule_id, { limit: query.limit ?? DeliveryListLimit.default }).pipe(
            Effect.map((items) => ({ items, total: items.length })),
            Effect.catchTag("AlertRuleNotFound", notFound)
          )
        )
      )
      .handle("failedDeliveries", ({ query, request }) =>
        forAccount(request, (account) =>
          rules
            .failed(account, { limit: query.limit ?? DeliveryListLimit.default })
            .pipe(Effect.map((items) => ({ items, total: items.length })))
        )
      )
      .handle("refire", ({ params, request }) =>
        forAccount(request, (account) => refire(rules, account, params.delivery_id))
      )
      .handle("enable", ({ params, query, request }) =>
        forAccount(request, (account) =>
          rules
            .enable(account, params.rule_id, { refire: query.refire ?? false })
            .pipe(Effect.catchTag("AlertRuleNotFound", notFound))
        )
      )
      .handle("rotateSecret", ({ params, query, request }) =>
        forAccount(request, (account) =>
          rules
            .rotateSecret(account, params.rule_id, query.overlap_seconds)
            .pipe(Effect.catchTag("AlertRuleNotFound", notFound))
        )
      )
      .handle("refireRuleFailed", ({ params, query, request }) =>
        forAccount(request, (account) =>
          rules
            .refireFailed(
              account,
              { ruleId: params.rule_id },
              { since: Date.parse(query.since), limit: query.limit }
            )
            .pipe(Effect.catchTag("AlertRuleNotFound", notFound))
        )
      )
      .handle("refireAccountFailed", ({ query, request }) =>
        forAccount(request, (account) =>
          rules
            .refireFailed(
              account,
              { accountId: account },
              { since: Date.parse(query.since), limit: query.limit }
            )
            .pipe(
              // The account's own scope names no rule: nothing to be not found.
              Effect.orDie
            )
        )
      )
  })
)
