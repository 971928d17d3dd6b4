/**
 * The dashboard watchlist page (spec part 3, "Webhook delivery": failed
 * deliveries are "listed on the dashboard watchlist page ... may be re-fired
 * manually from the dashboard"), served by every server process at
 * /dashboard: the account holder signs in with their API key (Pro and
 * above), sees the deliveries that failed, re-fires one with a button, and
 * reads each rule's delivery log. The page holds no data of its own: its
 * script calls the public API with the key as a bearer token, so it shows
 * nothing the API would not; the key stays in the tab's sessionStorage,
 * never in a cookie or a URL. Below, without a key, the public
 * post-quantum readiness league.
 */
import { Branding } from "@ratings/domain/model/ServiceInfo"
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { hashSource, pagePolicy } from "@ratings/adapters-http/server/SecurityHeaders"
import { DashboardScript } from "./DashboardScript.ts"

export const DashboardPath = "/dashboard"
export const DashboardScriptPath = "/dashboard/app.js"

const HtmlEntities: { readonly [c: string]: string } = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;"
}

/** Text for HTML content and quoted attribute values. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => HtmlEntities[c]!)

/** The page's style sheet (inline, allowed by its hash: the page loads nothing but its script). */
const DashboardCss = `
  :root { font-family: system-ui, sans-serif; color: #1b1f24; background: #f6f7f9; }
  body { margin: 0 auto; max-width: 1100px; padding: 1.5rem; }
  h1 { font-size: 1.4rem; margin: 0 0 .25rem; }
  h2 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
  p.lead { margin: 0 0 1rem; color: #4a5360; }
  form, .bar { display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; }
  input[type=password] { flex: 1 1 22rem; padding: .45rem .6rem; font: inherit; }
  button { font: inherit; padding: .4rem .8rem; border: 1px solid #8a94a3; border-radius: 4px; background: #fff; cursor: pointer; }
  button.primary { background: #1f5fbf; border-color: #1f5fbf; color: #fff; }
  button:disabled { opacity: .5; cursor: default; }
  table { width: 100%; border-collapse: collapse; background: #fff; font-size: .9rem; }
  th, td { text-align: left; padding: .45rem .5rem; border-bottom: 1px solid #e1e4e8; vertical-align: top; }
  th { background: #eef0f3; font-weight: 600; }
  code { font-size: .85em; word-break: break-all; }
  .status { padding: .1rem .4rem; border-radius: 3px; font-size: .8rem; }
  .status-failed { background: #fde2e1; color: #8a1c17; }
  .status-pending { background: #fff3cd; color: #6b4e00; }
  .status-delivered { background: #dcf5e3; color: #135c2c; }
  #message { min-height: 1.4rem; margin: .75rem 0; }
  #message.error { color: #8a1c17; }
  #message.ok { color: #135c2c; }
  .muted { color: #6a7380; }
  [hidden] { display: none !important; }
  tr.not-assessed td { color: #6a7380; }
  footer { margin-top: 2rem; padding-top: .75rem; border-top: 1px solid #e1e4e8; font-size: .85rem; color: #4a5360; }
  footer p { margin: .25rem 0; }
`

/**
 * The page under a branding: its title and footer carry the operator's
 * `Branding`, HTML-escaped. A quantum reading the source gives no QRI, band or
 * stage for is shown as "not assessed", never "null".
 */
export const dashboardHtml = (branding: Branding): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Webhook watchlist · ${escapeHtml(branding.serviceName)}</title>
<style>${DashboardCss}</style>
</head>
<body>
<header>
  <h1>Webhook watchlist</h1>
  <p class="lead">Deliveries that failed after every retry are listed here and are never replayed automatically. Re-fire one once its receiver is fixed: it keeps its delivery_id, so receivers that dedupe on it stay correct.</p>
</header>
<form id="signin">
  <label for="key">API key (Pro or Enterprise)</label>
  <input id="key" name="key" type="password" autocomplete="off" required placeholder="Bearer key">
  <button class="primary" type="submit">Sign in</button>
</form>
<div class="bar" id="session" hidden>
  <span>Signed in with key <code id="key-hint"></code></span>
  <button type="button" id="refresh">Refresh</button>
  <button type="button" id="signout">Sign out</button>
</div>
<div id="message" role="status" aria-live="polite"></div>
<section id="watchlist" hidden>
  <h2>Failed deliveries</h2>
  <table>
    <thead><tr><th>Delivery</th><th>Rule</th><th>Event</th><th>Status</th><th>Attempts</th><th>Last error</th><th>Created</th><th></th></tr></thead>
    <tbody id="failed-rows"></tbody>
  </table>
  <p id="no-failed" class="muted" hidden>No failed deliveries.</p>
</section>
<section id="rules" hidden>
  <h2>Alert rules</h2>
  <table>
    <thead><tr><th>Rule</th><th>Webhook URL</th><th>Watches</th><th>Created</th><th></th></tr></thead>
    <tbody id="rule-rows"></tbody>
  </table>
  <p id="no-rules" class="muted" hidden>No alert rules yet: create one with POST /api/v1/alert-rules.</p>
</section>
<section id="log" hidden>
  <h2>Delivery log of <span id="log-rule"></span></h2>
  <table>
    <thead><tr><th>Delivery</th><th>Event</th><th>Status</th><th>Attempts (started, outcome, status, ms)</th><th>Next attempt</th></tr></thead>
    <tbody id="log-rows"></tbody>
  </table>
</section>
<section id="quantum">
  <h2>Post-quantum readiness</h2>
  <p class="lead">A third-party dataset, shown as published; it never feeds a grade. A chain the source gives no figure for is marked not assessed.</p>
  <table>
    <thead><tr><th>Chain</th><th>Profile</th><th>QRI</th><th>Band</th><th>Migration stage</th><th>Hybrid signatures</th></tr></thead>
    <tbody id="quantum-rows"></tbody>
  </table>
  <p id="quantum-note" class="muted"></p>
</section>
<footer>
  <p><a id="brand-site" href="${escapeHtml(branding.siteUrl)}">${escapeHtml(branding.serviceName)}</a> · <a id="brand-methodology" href="${escapeHtml(branding.methodologyUrl)}">${escapeHtml(branding.frameworkName)}</a> · <a id="brand-terms" href="${escapeHtml(branding.termsUrl)}">Terms of service</a></p>
  <p id="brand-attribution">${escapeHtml(branding.attribution)}</p>
</footer>
<script src="${DashboardScriptPath}" defer></script>
</body>
</html>
`

/**
 * Only this origin's script and the page's own style sheet (no inline script
 * or style attribute), calls to this origin only, nothing else loaded, no
 * framing (pagePolicy; the server adds X-Frame-Options to every page,
 * SecurityHeaders.ts).
 */
export const DashboardPolicy = pagePolicy({
  "script-src": ["'self'"],
  "style-src": [hashSource(DashboardCss)],
  "connect-src": ["'self'"]
})

const securityHeaders = {
  "content-security-policy": DashboardPolicy,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store"
}

/** The page under a branding and its script, as routes to add to the server's router. */
export const dashboardRoutes = (branding: Branding) =>
  Layer.merge(
    HttpRouter.add(
      "GET",
      DashboardPath,
      HttpServerResponse.text(dashboardHtml(branding), {
        contentType: "text/html; charset=utf-8",
        headers: securityHeaders
      })
    ),
    HttpRouter.add(
      "GET",
      DashboardScriptPath,
      HttpServerResponse.text(DashboardScript, {
        contentType: "text/javascript; charset=utf-8",
        headers: securityHeaders
      })
    )
  )

/** The page and its script under the Branding in context, read when the routes are built. */
export const DashboardRoutes = Layer.unwrap(Effect.map(Branding, dashboardRoutes))
