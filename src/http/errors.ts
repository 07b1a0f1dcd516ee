// The closed set of error kinds and their one mapping to HTTP. Every error response is
// {success: false, message, code}; 5xx messages are generic and the detail goes only to the log.

export const ERROR_STATUS = {
  invalid_request: 400,
  key_in_query: 400,
  unauthorized: 401,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  header_too_large: 431,
  credits_exhausted: 429,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorKind = keyof typeof ERROR_STATUS;

/** An expected failure to report to the client as it is. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly headers: Record<string, string> = {},
    /** Fields the body carries besides success, message and code (the route's error schema names them). */
    readonly extra: Record<string, unknown> = {},
  ) {
    // Expected failures are answers, not bugs: skip the stack trace, which costs more than the
    // rest of a refused request (measured: ~4% of a metered 400's CPU).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = 'ApiError';
    this.status = ERROR_STATUS[kind];
  }
}

export interface ErrorBody {
  success: false;
  message: string;
  code: ErrorKind;
}

export function errorBody(kind: ErrorKind, message: string, extra: Record<string, unknown> = {}): ErrorBody {
  return { success: false, message, code: kind, ...extra };
}

export const INTERNAL_MESSAGE =
  'Internal error; the request can be retried safely. Quote the X-Request-Id header when reporting it.';

/** The database could not decide or record a request (a metered one is one write): nothing was served or taken. */
export const UNRECORDED_MESSAGE =
  'The service could not read or write its database, so the request was not served and no credit was taken; ' +
  'retry later. Quote the X-Request-Id header when reporting it.';

/** A charged answer whose usage row could not be settled, and whose charge could not be taken back either. */
export const WITHHELD_MESSAGE =
  'The answer could not be recorded, so it was withheld; the usage log records this 503. Retry later, ' +
  'quoting the X-Request-Id header when reporting it.';
