/**
 * The resource schemas of the read API: entity records, scorecards, answers,
 * questions, domain weights, response bodies, quantum readiness and error
 * bodies. Alert rules, incidents, webhook events, deliveries and callers have
 * their own modules.
 */
export * from "./Answer.ts"
export * from "./ChainBrief.ts"
export * from "./DomainWeights.ts"
export * from "./Entity.ts"
export * from "./ErrorBodies.ts"
export * from "./ExternalIds.ts"
export * from "./Primitives.ts"
export * from "./Quantum.ts"
export * from "./Question.ts"
export * from "./Responses.ts"
export * from "./Scorecard.ts"
