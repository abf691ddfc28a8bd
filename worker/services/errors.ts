// What a service verb refuses, in the domain's own words. The front doors map these to their
// protocol: api/ to the spec's HTTP status and {"detail": ...} body (api/render-error.ts), the
// MCP server to tool errors. Nothing here knows about HTTP.

export abstract class DomainError extends Error {
  override readonly name: string = this.constructor.name;
  /** What the client is told. */
  readonly detail: string;

  constructor(detail: string) {
    super(detail);
    this.detail = detail;
  }
}

/** No such record on this account (another account's record is not found either). */
export class NotFound extends DomainError {
  constructor(detail = "Not Found") {
    super(detail);
  }
}

/** The record's state, or another record, stands in the way (a duplicate, a limit reached). */
export class Conflict extends DomainError {
  constructor(detail = "Conflict") {
    super(detail);
  }
}

/**
 * One input field breaks a rule that the schema cannot express. `field` is the path inside the
 * verb's input ("new_password", ["items", 0, "prefix"]); the HTTP layer places it in the body.
 */
export class InvalidField extends DomainError {
  readonly field: (string | number)[];
  readonly type: string;

  constructor(field: string | (string | number)[], msg: string, type = "value_error") {
    super(msg);
    this.field = Array.isArray(field) ? field : [field];
    this.type = type;
  }
}

/** The caller is known but may not do this; the detail is the spec's word for why (owner_required). */
export class Forbidden extends DomainError {}

/** An agent's OAuth token lacks a scope the call needs; `scopes` names every scope the call needs (RFC 6750). */
export class InsufficientScope extends Forbidden {
  readonly scopes: string[];

  constructor(scopes: string[]) {
    super("insufficient_scope");
    this.scopes = scopes;
  }
}

/** No valid credential: a wrong password, an expired or revoked token. */
export class Unauthenticated extends DomainError {
  constructor(detail = "Not authenticated") {
    super(detail);
  }
}

/** A rule of the operation refuses it as asked (cannot_deactivate_owner, invalid_current_password). */
export class Refused extends DomainError {}

/** Too many attempts; try again after `retryAfterSec`. */
export class TooManyRequests extends DomainError {
  readonly retryAfterSec: number;

  constructor(detail: string, retryAfterSec: number) {
    super(detail);
    this.retryAfterSec = retryAfterSec;
  }
}

/** The balance does not cover what the operation costs. */
export class PaymentRequired extends DomainError {
  constructor(detail = "Insufficient balance") {
    super(detail);
  }
}

/** An outside service the verb relies on (the payment provider) failed. */
export class UpstreamFailed extends DomainError {}

/** A part the verb needs (the trunk registry, the SIP node) cannot be reached now; retrying may work. */
export class Unavailable extends DomainError {}

/** The part of a file asked for starts past its end. */
export class RangeNotSatisfiable extends DomainError {
  readonly size: number;

  constructor(size: number) {
    super("Range Not Satisfiable");
    this.size = size;
  }
}
