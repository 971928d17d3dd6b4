/**
 * The service's name, website and attribution text (spec part 1 rule 2: free
 * and anonymous use names the service as the data source and links to its
 * website; agents fall under the automated-access clause). The constants are
 * the defaults: an operator publishes under their own names through the
 * `Branding` service, read with `yield* Branding` by everything that shows
 * them. Without a provider it is `DefaultBranding`; the app provides
 * `Branding.layer(brandingOf(settings))` from its configuration.
 */
import { Context, Layer } from "effect"

export const ServiceName = "DeFi Risk Ratings"
export const ServiceWebsite = "https://defiratings.example"
export const MethodologyUrl = `${ServiceWebsite}/methodology`
export const TermsUrl = `${ServiceWebsite}/terms#automated-access`

/** The attribution text of a service name, website and terms. */
export const attributionText = (serviceName: string, siteUrl: string, termsUrl: string): string =>
  `Data source: ${serviceName} (${siteUrl}). Free and anonymous use must name ${serviceName} as the ` +
  `data source and link to ${siteUrl}. Use by AI assistants and agents is governed by the ` +
  `automated-access clause of the terms: ${termsUrl}.`

export const Attribution = attributionText(ServiceName, ServiceWebsite, TermsUrl)

/** What the service publishes itself as. */
export interface Branding {
  /** The public name: the Link header's title, the attribution, the OpenAPI title, the pages. */
  readonly serviceName: string
  /** The methodology's `name` (the framework the ratings are published under). */
  readonly frameworkName: string
  /** The website the attribution links to. */
  readonly siteUrl: string
  /** `<site>/methodology`: the methodology's `methodology_url`. */
  readonly methodologyUrl: string
  /** The terms whose automated-access clause governs AI assistants and agents. */
  readonly termsUrl: string
  /** The attribution text (X-Attribution, the methodology's `attribution`). */
  readonly attribution: string
}

/** What an operator may set; what is left out follows from the rest (or is the default). */
export interface BrandingSettings {
  readonly serviceName?: string | undefined
  readonly frameworkName?: string | undefined
  readonly siteUrl?: string | undefined
  readonly termsUrl?: string | undefined
  readonly attribution?: string | undefined
}

/**
 * The branding of some settings: the framework name defaults to
 * `<service name> Methodology` (by default MethodologyName), the methodology URL is `<site>/methodology`,
 * the terms `<site>/terms#automated-access`, and the attribution text names
 * the service, its site and its terms. `brandingOf({})` is the default,
 * exactly the constants above.
 */
export const brandingOf = (settings: BrandingSettings = {}): Branding => {
  const serviceName = settings.serviceName ?? ServiceName
  const siteUrl = settings.siteUrl ?? ServiceWebsite
  const base = siteUrl.replace(/\/+$/, "")
  const termsUrl = settings.termsUrl ?? `${base}/terms#automated-access`
  return {
    serviceName,
    frameworkName: settings.frameworkName ?? `${serviceName} Methodology`,
    siteUrl,
    methodologyUrl: `${base}/methodology`,
    termsUrl,
    attribution: settings.attribution ?? attributionText(serviceName, siteUrl, termsUrl)
  }
}

export const DefaultBranding: Branding = brandingOf()

const brandingReference = Context.Reference<Branding>("@ratings/domain/model/ServiceInfo/Branding", {
  defaultValue: () => DefaultBranding
})

export const Branding = Object.assign(brandingReference, {
  /** This branding, provided once for everything that shows it. */
  layer: (branding: Branding): Layer.Layer<never> => Layer.succeed(brandingReference, branding)
})
