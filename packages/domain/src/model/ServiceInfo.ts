/**
 * The service's name, website and attribution text (spec part 1 rule 2: free
 * and anonymous use names the service as the data source and links to its
 * website; AI assistants and agents are governed by the automated-access clause).
 */
export const ServiceName = "DeFi Risk Ratings"
export const ServiceWebsite = "https://defiratings.example"
export const MethodologyUrl = `${ServiceWebsite}/methodology`
export const TermsUrl = `${ServiceWebsite}/terms#automated-access`

export const Attribution =
  `Data source: ${ServiceName} (${ServiceWebsite}). Free and anonymous use must name ${ServiceName} as the ` +
  `data source and link to ${ServiceWebsite}. Use by AI assistants and agents is governed by the ` +
  `automated-access clause of the terms: ${TermsUrl}.`
