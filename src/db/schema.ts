// Table types for Kysely. Times are integer milliseconds since the Unix epoch (UTC) in both
// dialects, and booleans are 0/1 integers, so the same queries and the same code read both.
import type { Generated } from 'kysely';

export type Flag = 0 | 1;
export type BillingStatus = 'none' | 'active' | 'canceled' | 'past_due';

export interface AccountsTable {
  id: string;
  slug: string;
  name: string;
  unlimited: Flag;
  disabled: Flag;
  billing_status: BillingStatus;
  /** Credits included per window; null when the account has never had a plan. */
  plan_included: number | null;
  plan_overage: Flag;
  /** Start of the first window; every window is [anchor + k·30 d, anchor + (k+1)·30 d). */
  window_anchor: number;
  created_at: number;
  updated_at: number;
  /** The catalogue plan in effect (null: a custom allowance, or none); plan_included/plan_overage hold its allowance. */
  plan_id: string | null;
  /** A plan change waiting for the window that starts at next_plan_from (docs/billing.md). */
  next_plan_id: string | null;
  next_plan_from: number | null;
  next_plan_included: number | null;
  next_plan_overage: Flag | null;
  /** The account's customer id at the payment gateway (Stripe's `cus_…`). */
  gateway_customer: string | null;
  /** The saved payment method charged off-session (Stripe's `pm_…`). */
  payment_method: string | null;
  /** The end of the window at which the customer's cancellation takes effect (0020); null: none pending. */
  cancel_at: number | null;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  /** The first characters of the plaintext, shown to tell keys apart. */
  prefix: string;
  /** SHA-256 of the plaintext key, lower-case hex. The plaintext is never stored. */
  hash: string;
  disabled: Flag;
  created_at: number;
  updated_at: number;
}

export interface CreditWindowsTable {
  account_id: string;
  window_start: number;
  /** Credits taken in this window, overage included. */
  used: number;
  /** How many credits the last guarded statement granted (read back through RETURNING). */
  last_grant: number;
}

export interface UsageLogTable {
  id: Generated<number>;
  at: number;
  account_id: string;
  key_id: string;
  endpoint: string;
  status: number;
  duration_ms: number;
  query: string;
  /** 1: served past the allowance (billed as overage), written with the credit. */
  overage: Generated<Flag>;
  /** The catalogue plan that priced the request; null on custom allowances. */
  plan_id: Generated<string | null>;
}

/** A settled disruption kept for replay (docs/flight-lookup.md, "Replay"), unique on flight number and date. */
export interface FlightRecordsTable {
  /** The normalised designator the lookup asked for. */
  flight_number: string;
  flight_date: string;
  origin_iata: string | null;
  destination_iata: string | null;
  /**
   * 1 when stored by a lookup without origin/destination: the leg such a lookup chooses (the first of
   * the day). Only such a row is replayed to unfiltered lookups.
   */
  unfiltered: Flag;
  status: string;
  /** The provider the record came from (`meta.source` of a replay). */
  source: string;
  /** The departure (actual, else scheduled) the settle rule was applied to. */
  departed_at: number;
  /** JSON: the response's data without flightNumber, flightDate and meta. */
  body: string;
  created_at: number;
  updated_at: number;
}

/** A webhook endpoint: the account's subscription to airports (managed by the webhook capability). */
export interface EndpointsTable {
  id: string;
  account_id: string;
  name: string;
  url: string;
  /** JSON array of catalogue IATA codes. */
  airports: string;
  enabled: Flag;
  secret: string;
  /** The secret before the last rotation, sealed, still signing until previous_secret_until (0026); null when none. */
  previous_secret?: string | null;
  previous_secret_until?: number | null;
  consecutive_failures: number;
  /** No attempt of its queued deliveries before this time (0014); null while it answers. */
  backoff_until?: number | null;
  /** JSON array of the account events it receives (webhooks/account-events.ts, 0016). */
  account_events?: string;
  created_at: number;
  updated_at: number;
  disabled_at: number | null;
  disabled_reason: string | null;
}

/** What the board engine remembers of one flight on one board (src/boards/engine.ts `Watch`). */
export interface WatchesTable {
  airport: string;
  board: string;
  /** Designator and scheduled time at the airport: the row's identity on the board. */
  flight_key: string;
  flight_id: string;
  last_seen_at: number;
  /** JSON of the Watch. */
  state: string;
  /** The last_seen_at this version was computed from (the board store's compare-and-set, 0012); null for a first sight. */
  basis?: number | null;
}

/** One observed change, stored once with an id shared by every subscriber. */
export interface BoardEventsTable {
  id: string;
  type: string;
  airport: string;
  board: string;
  flight_id: string;
  created_at: number;
  /** JSON: the 6.3 `data` ({flight, previous, qualification?}). */
  data: string;
  /** The change recorded (flight, type, the watch it was computed from); unique per board. Null on events stored before 0012. */
  change_key?: string | null;
  /** The flight's scheduled time at this airport, and its carrier (IATA, else ICAO); null on events stored before 0015. */
  scheduled_at?: number | null;
  carrier?: string | null;
}

/** A board event observed for an account's watch of its flight (src/boards/followed.ts, migration 0029). */
export interface BoardEventWatchesTable {
  event_id: string;
  watch_id: string;
  /** The event's type and created_at, and its place among its observation's events: a watch's events in order. */
  event_type: string;
  created_at: number;
  position: number;
}

/** An event whose deliveries are still being written (the fan-out's to-do list; deleted once all are). */
export interface FanOutQueueTable {
  event_id: string;
  /** The event's created_at: the fan-out takes events in this order. */
  created_at: number;
}

/** One event for one endpoint (src/webhooks): the unit of at-least-once delivery. */
export interface DeliveriesTable {
  seq: Generated<number>;
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  state: 'pending' | 'delivered' | 'failed' | 'skipped';
  attempts: number;
  next_attempt_at: number | null;
  lease_until: number | null;
  last_attempt_at: number | null;
  last_status: number | null;
  last_error: string | null;
  body: string | null;
  created_at: number;
  delivered_at: number | null;
}

/** The first answer to a POST sent with an Idempotency-Key (src/idempotency), per account and key. */
export interface IdempotencyKeysTable {
  account_id: string;
  key: string;
  fingerprint: string;
  created_at: number;
  /** Null while the first request is in progress. */
  status: number | null;
  content_type: string | null;
  body: string | null;
}

/** A fixed-window counter shared by every process (test-send limits of the webhook capability). */
export interface RateLimitWindowsTable {
  /** What is limited, e.g. `webhook-test:endpoint:wh_…`. */
  bucket: string;
  /** Start of the current window (epoch ms, from the service clock). */
  window_start: number;
  /** How much of the window's allowance has been taken. */
  used: number;
}

export interface DatabaseSchema {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  credit_windows: CreditWindowsTable;
  flight_records: FlightRecordsTable;
  endpoints: EndpointsTable;
  watches: WatchesTable;
  board_events: BoardEventsTable;
  fan_out_queue: FanOutQueueTable;
  board_event_watches: BoardEventWatchesTable;
  deliveries: DeliveriesTable;
  usage_log: UsageLogTable;
  idempotency_keys: IdempotencyKeysTable;
  rate_limit_windows: RateLimitWindowsTable;
  database_identity: DatabaseIdentityTable;
  users: UsersTable;
  sessions: SessionsTable;
  invites: InvitesTable;
  signin_throttle: SigninThrottleTable;
  delivery_attempts: DeliveryAttemptsTable;
  refusals: RefusalsTable;
  plans: PlansTable;
  invoices: InvoicesTable;
  invoice_lines: InvoiceLinesTable;
  invoice_numbers: { id: string; last: number };
  account_billing: AccountBillingTable;
  credit_notes: CreditNotesTable;
  billing_events: BillingEventsTable;
  billing_runs: BillingRunsTable;
  job_runs: JobRunsTable;
  batches: BatchesTable;
  batch_lookups: BatchLookupsTable;
  batch_rows: BatchRowsTable;
  observed_flights: ObservedFlightsTable;
  airport_days: AirportDaysTable;
  airport_additions: AirportAdditionsTable;
  flight_watches: FlightWatchesTable;
  flight_watch_endpoints: FlightWatchEndpointsTable;
  followed_flights: FollowedFlightsTable;
  follow_requests: FollowRequestsTable;
  kept_hours: KeptHoursTable;
  mail_outbox: MailOutboxTable;
  password_resets: OneTimeLinksTable;
  email_verifications: OneTimeLinksTable;
  billing_email_confirmations: BillingEmailConfirmationsTable;
  mail_unsubscribes: { recipient: string; category: string; at: number };
  mail_unsubscribe_tokens: { id: string; recipient: string; category: string; created_at: number };
}

/** A one-time link sent by mail (src/users/recovery.ts): `id` is the SHA-256 of its token. */
export interface OneTimeLinksTable {
  id: string;
  user_id: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/** One mail, queued until the worker sends it (src/mail). */
export interface MailOutboxTable {
  seq: Generated<number>;
  id: string;
  account_id: string | null;
  recipient: string;
  kind: string;
  subject: string;
  /** JSON of the parts until sent; null after. */
  body: string | null;
  dedupe_key: string | null;
  state: 'queued' | 'sent' | 'failed';
  attempts: Generated<number>;
  next_attempt_at: number;
  lease_until: number | null;
  last_error: string | null;
  created_at: number;
  sent_at: number | null;
}

/** A plan of the operator's catalogue (src/billing). */
export interface PlansTable {
  /** The operator's own id, e.g. `starter`. */
  id: string;
  name: string;
  /** ISO 4217, upper case. */
  currency: string;
  monthly_fee_minor: number;
  /** Credits per 30-day window. */
  included: number;
  overage: Flag;
  /** Price of one request past the allowance, in millionths of a minor unit (0 without overage). */
  overage_price_micro_minor: number;
  created_at: number;
  updated_at: number;
  /** Offered to customers on the dashboard's plan change (the operator marks it). */
  self_service: Flag;
}

/** Metered requests refused before a credit was taken, per account, UTC day (index) and status. */
export interface RefusalsTable {
  account_id: string;
  /** Days since the epoch (UTC). */
  day: number;
  /** 402, 403 or 429. */
  status: number;
  count: number;
}

/** One attempt of a webhook delivery, as the worker (or a test send) recorded it. */
export interface DeliveryAttemptsTable {
  seq: Generated<number>;
  delivery_id: string;
  /** 1 for the first attempt. */
  attempt: number;
  at: number;
  /** The receiver's HTTP status; null when there was no answer. */
  status: number | null;
  error: string | null;
  duration_ms: number;
}

/** A person who signs in to the dashboard and acts for one account. */
export interface UsersTable {
  id: string;
  account_id: string;
  /** Lower-cased and trimmed; unique. */
  email: string;
  /** scrypt in PHC form: `$scrypt$ln=17,r=8,p=1$<salt>$<hash>` (base64). */
  password_hash: string;
  /** owner: everything, the team included; developer: keys, webhooks, lookups, batches; billing: plan and invoices. */
  role: 'owner' | 'developer' | 'billing';
  created_at: number;
  updated_at: number;
  /** When the user proved the address (a link sent to it); null: not yet. */
  email_verified_at: Generated<number | null>;
}

/** A signed-in browser: `id` is the SHA-256 (hex) of the token in its cookie. */
export interface SessionsTable {
  id: string;
  user_id: string;
  created_at: number;
  expires_at: number;
}

/** An operator's one-time sign-up link for an account: `id` is the SHA-256 (hex) of its token. */
export interface InvitesTable {
  id: string;
  account_id: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  /** A colleague's invitation: the role given and the address it was sent to (null: the operator's, an owner). */
  role?: 'owner' | 'developer' | 'billing' | null;
  email?: string | null;
  /** Its public id, which the Team page lists and revokes it by (0021; never the token's hash). */
  ref?: string | null;
  /** The email of the owner who invited (0021); null: the operator's. */
  invited_by?: string | null;
}

/** Failed sign-ins per bucket (`email:<sha256>` or `ip:<address>`). */
export interface SigninThrottleTable {
  bucket: string;
  failures: number;
  last_failure_at: number;
  locked_until: number;
}

/** One row: this database's random id (see src/db/identity.ts). */
export interface DatabaseIdentityTable {
  id: string;
}

/** An invoice (src/billing/invoices.ts): unique per account, kind and period. */
export interface InvoicesTable {
  id: string;
  /** Taken when the invoice opens; null while a draft. */
  number: number | null;
  account_id: string;
  /** upgrade: the prorated difference of an upgrade, its period from the upgrade to the window's end. */
  kind: 'overage' | 'fee' | 'upgrade';
  period_start: number;
  period_end: number;
  currency: string;
  total_minor: number;
  state: 'draft' | 'open' | 'paid' | 'uncollectible' | 'void';
  /** Counted charge attempts (declines); a gateway outage does not count. */
  attempts: number;
  /** When the next automatic charge is due; null when none is planned. */
  next_attempt_at: number | null;
  /** 1 once dunning ran out: this invoice holds the account past due until it is paid or voided. */
  overdue: Flag;
  /** The gateway's reference of the last attempt (a PaymentIntent id). */
  gateway_ref: string | null;
  created_at: number;
  finalized_at: number | null;
  paid_at: number | null;
  updated_at: number;
  /** Frozen when it opens (0020); null on invoices opened before. total_minor is then net + tax. */
  net_minor: number | null;
  tax_minor: number | null;
  tax_treatment: string | null;
  /** Hundredths of a percent: 1900 is 19 %. */
  tax_rate_bp: number | null;
  tax_country: string | null;
  due_at: number | null;
  seller_json: string | null;
  buyer_json: string | null;
}

/** The buyer's details of an account (src/billing/buyer.ts). */
export interface AccountBillingTable {
  account_id: string;
  name: string | null;
  address: string | null;
  country: string | null;
  vat_id: string | null;
  email: string | null;
  updated_at: number;
  /** When the billing email was confirmed (0021): its link opened, or set by the operator; null: not confirmed. */
  email_confirmed_at?: number | null;
}

/** A one-time link that confirms a billing email (src/billing/billing-email.ts): `id` is the SHA-256 of its token. */
export interface BillingEmailConfirmationsTable {
  id: string;
  account_id: string;
  email: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/** A credit note: a refund or correction of an issued invoice, numbered from its own counter. */
export interface CreditNotesTable {
  id: string;
  number: number;
  invoice_id: string;
  account_id: string;
  currency: string;
  net_minor: number;
  tax_minor: number;
  total_minor: number;
  reason: string;
  created_at: number;
}

export interface InvoiceLinesTable {
  invoice_id: string;
  line: number;
  plan_id: string;
  description: string;
  quantity: number;
  unit_price_micro_minor: number;
  amount_minor: number;
}

/** Every billing state change, with its time and reason. */
export interface BillingEventsTable {
  id: Generated<number>;
  at: number;
  account_id: string;
  invoice_id: string | null;
  subject: 'invoice' | 'account' | 'charge' | 'plan' | 'credit_note';
  from_state: string | null;
  to_state: string;
  reason: string;
}

/** A calendar month the invoicing job has closed (or is closing). */
export interface BillingRunsTable {
  period_start: number;
  started_at: number;
  finished_at: number | null;
  invoices: number;
}

/** One periodic job's run of one slot, taken by the process that inserted it (0012). */
export interface JobRunsTable {
  job: string;
  /** The due time the run is for (ms). */
  slot: number;
  /** host:pid of the process that took it. */
  holder: string;
  started_at: number;
  finished_at: number | null;
  ok: number | null;
}

/** A batch of flights checked at once (src/batches, migration 0016). */
export interface BatchesTable {
  id: string;
  account_id: string;
  caller_id: string;
  caller_name: string;
  state: 'queued' | 'running' | 'done' | 'canceled';
  format: 'json' | 'csv';
  total_rows: number;
  lookups: number;
  /** JSON array. */
  ignored_columns: string;
  stopped_reason: string | null;
  calls_planned: Generated<number>;
  calls_made: Generated<number>;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  expires_at: number | null;
  notified: Generated<Flag>;
}

/** A flight as one board showed it once final (src/boards/observed.ts). */
export interface ObservedFlightsTable {
  board: 'departures' | 'arrivals';
  airport: string;
  flight: string;
  scheduled_at: number;
  /** JSON of the board row's fields a record needs (ObservedRow). */
  row: string;
  seen_at: number;
  /** The row's registration as a plate (`GEZTH`), null where the board named none (migration 0024). */
  registration: string | null;
}

/** One question of a batch, shared by the rows that ask it. */
export interface BatchLookupsTable {
  batch_id: string;
  seq: number;
  query: string;
  plan: string | null;
  state: 'pending' | 'running' | 'done' | 'refused' | 'canceled';
  attempts: Generated<number>;
  lease_until: number | null;
  retry_at: number | null;
  /** JSON of the lookup's summary (src/batches/results.ts). */
  result: string | null;
  calls: Generated<number>;
}

/** One input row of a batch. */
export interface BatchRowsTable {
  batch_id: string;
  position: number;
  reference: string | null;
  lookup_seq: number | null;
  state: 'pending' | 'done' | 'refused' | 'invalid' | 'canceled';
  outcome: string | null;
  usage_id: number | null;
  error: string | null;
  finished_at: number | null;
}

/**
 * An airport's boards of one local day, read whole after the fact (docs/boards.md, "A past day's boards"; src/boards/days.ts): its
 * rows are in observed_flights (seen_at = read_at), and both go after FLIGHTSTATUS_OBSERVED_RETENTION_DAYS.
 */
/** An airport the operator added to the catalogue (0027, src/airports/additions.ts); the facts are the reference's. */
export interface AirportAdditionsTable {
  iata: string;
  /** The operator's name or city for it, where the reference's is not what travellers say; null: the reference's. */
  name: string | null;
  city: string | null;
  added_at: number;
}

export interface AirportDaysTable {
  airport: string;
  /** The airport's local date, YYYY-MM-DD. */
  date: string;
  /** The provider whose boards were read. */
  provider: string;
  /** Rows read, both boards. */
  rows: number;
  read_at: number;
}

/**
 * Scheduled hours in which every row of an airport's two boards was kept by the poll, final or left
 * unfinished (docs/boards.md, "The hours kept whole"; src/boards/observed.ts `keepHours`): a leg missing from them did not fly there
 * then. Trimmed with the rows at FLIGHTSTATUS_OBSERVED_RETENTION_DAYS.
 */
export interface KeptHoursTable {
  airport: string;
  from_at: number;
  to_at: number;
}

/** An account's watch of one flight (src/watches, migration 0028); not the board poller's `watches`. */
export interface FlightWatchesTable {
  id: string;
  account_id: string;
  flight_number: string;
  flight_date: string;
  date_basis: 'utc' | 'local';
  origin: string | null;
  destination: string | null;
  reference: string | null;
  /** The flight as asked, the reference and the endpoints, canonical: unique among the account's active watches. */
  watch_key: string;
  state: 'active' | 'stopped' | 'ended';
  ended_reason: string | null;
  created_at: number;
  ended_at: number | null;
  /** When the settle job next asks about the watch (0030): from the flight's own arrival, or its back-off; null: by the flight date. */
  settle_at?: number | null;
  /** How often the settle job found the record incomplete (its back-off, and when it gives up). */
  settle_checks?: number;
  /** The lookup's answer (JSON) the watch ended on, as its flight.settled carried it (0031); null before. */
  record?: string | null;
}

/** A watched flight no polled board shows, followed through the providers (src/watches/follow.ts, migration 0030). */
export interface FollowedFlightsTable {
  flight_key: string;
  flight_number: string;
  flight_date: string;
  date_basis: 'utc' | 'local';
  origin: string | null;
  destination: string | null;
  /** JSON: each end's board-engine memory, the last answer, the back-off (follow.ts). */
  state: string;
  /** Compare-and-set: a write is stored only over the version it read. */
  version: number;
  /** When it is asked next; null when nothing is left to ask. */
  next_at: number | null;
  /** Provider requests made for it. */
  requests: number;
  created_at: number;
  updated_at: number;
}

/** Provider requests made for following in one hour: globally (`*`) and per account. */
export interface FollowRequestsTable {
  scope: string;
  hour: number;
  requests: number;
}

/** A webhook endpoint a watch sends to. */
export interface FlightWatchEndpointsTable {
  watch_id: string;
  endpoint_id: string;
}
