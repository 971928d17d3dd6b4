/**
 * The page shell every explorer page shares: head (title, viewport, the style
 * sheet and script by their hashed URLs), the site header with the operator's
 * branding and the nav (home, each entity type, incidents, methodology,
 * quantum, webhooks), the sign-in form or the signed-in state with its
 * sign-out form, the page's main content, and the footer with the attribution.
 */
import type { CallerKind } from "@ratings/domain/model/Caller"
import { EntityTypes, PluralOf } from "@ratings/domain/model/EntityType"
import type { Branding } from "@ratings/domain/model/ServiceInfo"
import { type Child, el, type Node } from "./Dom.ts"
import { assetUrl, CssAsset, ScriptAsset } from "./Assets.ts"
import { TypeTitles } from "./Words.ts"

/** Who is looking: the kind of caller their key (or none) gives. */
export interface Viewer {
  readonly kind: CallerKind
}

export interface PageProps {
  readonly branding: Branding
  readonly viewer: Viewer
  /** The page's own title (the service name is added). */
  readonly title: string
  /** The path of the nav entry this page belongs to ("/" for home). */
  readonly section: string
  /** A message above the content (the sign-in form's refusal, for one). */
  readonly notice?: string | undefined
  readonly children: Child
}

const NavEntries: ReadonlyArray<readonly [string, string]> = [
  ["/", "Home"],
  ...EntityTypes.map((t) => [`/${PluralOf[t]}`, TypeTitles[t]] as const),
  ["/incidents", "Incidents"],
  ["/methodology", "Methodology"],
  ["/quantum", "Quantum readiness"],
  ["/webhooks", "Webhooks"]
]

const TierNames: Record<CallerKind, string> = {
  anonymous: "anonymous",
  free: "Free",
  pro: "Pro",
  enterprise: "Enterprise",
  admin: "admin"
}

const nav = (section: string): Node =>
  el(
    "nav",
    { class: "main", "aria-label": "Main" },
    el(
      "ul",
      null,
      NavEntries.map(([href, label]) =>
        el(
          "li",
          { key: href },
          el("a", { href, "aria-current": href === section ? "page" : undefined }, label)
        )
      )
    )
  )

/** The sign-in form, or who is signed in and the sign-out form. */
export const sessionBar = (viewer: Viewer): Node =>
  viewer.kind === "anonymous"
    ? el(
        "form",
        { class: "session", method: "post", action: "/sign-in" },
        el("label", { for: "key" }, "API key"),
        el("input", {
          id: "key",
          name: "key",
          type: "password",
          autocomplete: "off",
          required: true,
          placeholder: "rk_..."
        }),
        el("button", { type: "submit" }, "Sign in")
      )
    : el(
        "form",
        { class: "session", method: "post", action: "/sign-out" },
        el("span", null, `Signed in: ${TierNames[viewer.kind]} tier`),
        el("button", { type: "submit" }, "Sign out")
      )

const footer = (branding: Branding): Node =>
  el(
    "footer",
    { class: "site" },
    el(
      "p",
      null,
      el("a", { href: branding.siteUrl }, branding.serviceName),
      " · ",
      el("a", { href: branding.methodologyUrl }, branding.frameworkName),
      " · ",
      el("a", { href: branding.termsUrl }, "Terms of service"),
      " · ",
      el("a", { href: "/docs" }, "API reference")
    ),
    el("p", { class: "attribution" }, branding.attribution)
  )

/** The whole document of a page. */
export const Layout = (props: PageProps): Node =>
  el(
    "html",
    { lang: "en" },
    el(
      "head",
      null,
      el("meta", { charset: "utf-8" }),
      el("meta", { name: "viewport", content: "width=device-width, initial-scale=1" }),
      el("title", null, `${props.title} · ${props.branding.serviceName}`),
      el("link", { rel: "stylesheet", href: assetUrl(CssAsset) }),
      el("script", { src: assetUrl(ScriptAsset), defer: true })
    ),
    el(
      "body",
      null,
      el("a", { class: "skip", href: "#content" }, "Skip to content"),
      el(
        "header",
        { class: "site" },
        el("a", { class: "brand", href: "/" }, props.branding.serviceName),
        el("span", { class: "framework" }, `Ratings under the ${props.branding.frameworkName}`),
        nav(props.section),
        sessionBar(props.viewer)
      ),
      el(
        "main",
        { id: "content" },
        props.notice === undefined ? null : el("p", { class: "message error", role: "alert" }, props.notice),
        props.children
      ),
      footer(props.branding)
    )
  )
