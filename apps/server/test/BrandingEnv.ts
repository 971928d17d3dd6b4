/**
 * An operator's branding as environment variables (issue 17 point 1), every
 * one set; the service name holds characters HTML and the Link header's
 * quoted title must escape. The process tests start `ratings serve` with it.
 */
export const AcmeEnv = {
  RATINGS_SERVICE_NAME: 'Acme <Risk> & "Desk"',
  RATINGS_FRAMEWORK_NAME: "Acme Digital Asset Risk Framework",
  RATINGS_SITE_URL: "https://risk.acme.example/ratings",
  RATINGS_TERMS_URL: "https://legal.acme.example/terms?v=3#agents",
  RATINGS_ATTRIBUTION:
    "Ratings by Acme Risk Desk (https://risk.acme.example/ratings); see the terms for agents."
}
