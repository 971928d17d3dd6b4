/**
 * The webhook target policy's URL check, remembered per URL for one
 * transport, with what undici is handed for it (origin and path): both
 * depend on nothing but the URL and the policy, and a fan-out sends to the
 * same URLs again and again.
 */
import {
  checkUrl,
  type TargetPolicy,
  type WebhookUrlRejected
} from "@ratings/domain/webhooks/WebhookTargetPolicy"
import { Result } from "effect"

/** How many URLs a transport keeps checked, at most; past that it starts over. */
const CheckedUrls = 10_000

/** Where a checked URL's POST goes, as undici's dispatch takes it. */
export interface PostTarget {
  readonly origin: string
  readonly path: string
}

export type UrlCheck = (url: string) => Result.Result<PostTarget, WebhookUrlRejected>

/** `checkUrl` under the transport's policy, remembered per URL. */
export const urlChecker = (policy: TargetPolicy): UrlCheck => {
  const checked = new Map<string, Result.Result<PostTarget, WebhookUrlRejected>>()
  return (url) => {
    let result = checked.get(url)
    if (result === undefined) {
      result = Result.map(checkUrl(url, policy), (parsed) => ({
        origin: parsed.origin,
        path: parsed.pathname + parsed.search
      }))
      if (checked.size >= CheckedUrls) checked.clear()
      checked.set(url, result)
    }
    return result
  }
}
