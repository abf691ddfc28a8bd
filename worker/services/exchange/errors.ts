// The exchange's wording of the domain errors (worker/services/errors.ts): a refusal names the
// field it is about, "<field>: <problem>", as the exchange spec's error messages do. The front
// door (worker/exchange/respond.ts) gives each its HTTP status.
import { Conflict, DomainError, InvalidField, NotFound, Unavailable, UpstreamFailed } from "../errors.ts";

/** The field's value breaks a rule: "<field>: <problem>". */
export const invalidInput = (field: string, problem: string) => new InvalidField(field, problem);
/** The field names a record that does not exist (or is another account's), e.g. unknown("i_esim_package", "package"). */
export const unknown = (field: string, what: string) => new NotFound(`${field}: unknown ${what}`);
/** The record's state stands in the way: "<field>: <problem>". */
export const conflict = (field: string, problem: string) => new Conflict(`${field}: ${problem}`);

/**
 * A verb's refusal: it decided not to act, so nothing was charged (or the charge was refunded).
 * Any other failure (D1, a Durable Object, an outside service) leaves the outcome uncertain.
 */
export const isRefusal = (err: unknown): err is DomainError =>
  err instanceof DomainError && !(err instanceof Unavailable) && !(err instanceof UpstreamFailed);
