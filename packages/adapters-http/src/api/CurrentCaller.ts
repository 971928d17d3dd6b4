/**
 * Who is calling, as the authentication middleware established it: anonymous
 * (by IP), an API key of a tier, or an admin (identity-provider JWT). Handlers
 * read it and pass it to the domain's use cases, which apply the tier rules.
 */
import type { Caller } from "@ratings/domain/model/Caller"
import { Context } from "effect"

export class CurrentCaller extends Context.Service<CurrentCaller, Caller>()(
  "@ratings/adapters-http/CurrentCaller"
) {}
