/**
 * The webhook target policy's URL check, remembered per URL for one
 * transport: the check depends on nothing but the URL and the policy, and a
 * fan-out sends to the same URLs again and again.
 */
import { checkUrl, type TargetPolicy } from "@ratings/domain/webhooks/WebhookTargetPolicy"

/** How many URLs a transport keeps checked, at most; past that it starts over. */
const CheckedUrls = 10_000

export type UrlCheck = (url: string) => ReturnType<typeof checkUrl>

/** `checkUrl` under the transport's policy, remembered per URL. */
export const urlChecker = (policy: TargetPolicy): UrlCheck => {
  const checked = new Map<string, ReturnType<typeof checkUrl>>()
  return (url) => {
    let result = checked.get(url)
    if (result === undefined) {
      result = checkUrl(url, policy)
      if (checked.size >= CheckedUrls) checked.clear()
      checked.set(url, result)
    }
    return result
  }
}
