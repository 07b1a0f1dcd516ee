// The help of every `flightstatus` command and subcommand: `flightstatus COMMAND [SUBCOMMAND] --help`
// (or -h, or `flightstatus help COMMAND [SUBCOMMAND]`) prints one of these on stdout and does nothing else.

export const USAGE = `Usage: flightstatus <command> [options]

  serve                               run the service (npm start)
  migrate                             apply pending database migrations
  accounts create --slug SLUG [--name NAME] [--plan PLAN | --included N [--overage]] [--unlimited]
  accounts get ID|SLUG
  accounts list
  accounts set ID|SLUG [--disabled|--enabled] [--status active|canceled|past_due|none]
                       [--plan PLAN] [--included N] [--overage|--no-overage] [--unlimited|--limited]
                       [--gateway-customer cus_...] [--payment-method pm_...]
  accounts usage ID|SLUG [--days N]   metered requests per UTC day (default: last 30 days)
  accounts invite ID|SLUG             a one-time dashboard sign-up link for the account
  keys create --account ID|SLUG --name NAME
  keys disable KEY_ID
  keys enable KEY_ID
  plans create --id ID --currency EUR --fee 49.00 --included N [--name NAME] [--overage --overage-price 0.002]
  plans list
  plans get ID                        the operator's plan catalogue (docs/billing.md)
  invoices list [--account ID|SLUG] [--state STATE] [--kind overage|fee] [--month YYYY-MM]
  invoices get INVOICE_ID             an invoice and every change it went through
  invoices pay|void|uncollectible INVOICE_ID [--reason TEXT]
  invoices run --month YYYY-MM        invoice a month again (writes only what is missing)
  clock [show]                        the running service's clock and periodic jobs
  clock advance DURATION              move a manual clock forward (90s, 30m, 2h, 1d), running due jobs
  clock set TIME                      move a manual clock to an ISO 8601 time
  sim flights --date DATE [--airport IATA] [--status delayed|cancelled|diverted|on_time]
              [--operation passenger|cargo|military|private] [--table] [--url URL]
                                      the simulated world's true outcomes (DATE may be today or
                                      yesterday, on the running service's clock)
  sim calibrate [--from DATE] [--days N] [--url URL]
                                      the simulated delay statistics beside the published figures
  providers check                     call each configured flight data provider once: does its key work?
  help [COMMAND [SUBCOMMAND]]         this text, or a command's own (also: COMMAND --help, -h)
  --version, -V                       the version of flightstatus

Configuration comes from the environment (and ./.env): DATABASE_URL, PORT, HOST,
FLIGHTSTATUS_ADMIN_TOKEN, FLIGHTSTATUS_SIM_SEED, LOG_LEVEL... See .env.example.
Exit codes: 0 done, 1 refused or failed, 2 usage error.`;

/** What every command that opens the database does first; shown in their help. */
const DATABASE_NOTE = `Opens the database of DATABASE_URL (environment, then ./.env; default sqlite:./data/flightstatus.db)
and names it on stderr. When FLIGHTSTATUS_ADMIN_TOKEN is set (or the clock is manual) it first asks the
running service (http://HOST:PORT, or --url URL) and refuses if the service uses another database;
on the manual clock, "now" is the service's. Prints {success, data|message} as JSON on stdout.`;

const db = (text: string) => `${text}\n\n${DATABASE_NOTE}`;

export const HELP: Record<string, string> = {
  serve: `Usage: flightstatus serve [--role all|api|worker]

Runs the service on HOST:PORT (default 127.0.0.1:8080) with the database of DATABASE_URL, migrating
it first; what npm start runs. SIGTERM or Ctrl-C stops it gracefully.

  --role all      the API and the periodic jobs in this one process (the default, FLIGHTSTATUS_ROLE)
  --role api      the HTTP API and dashboard only; run a worker beside it
  --role worker   the board poll, webhook deliveries, invoicing and pruning; answers only
                  /api/health, /api/ready, /metrics and the operator's clock and service report

Several processes share one PostgreSQL (docs/deploy.md).`,
  migrate: db(`Usage: flightstatus migrate [--url URL]

Applies pending database migrations and prints {database, applied}.`),
  accounts: `Usage: flightstatus accounts <create|get|list|set|usage|invite> ...

  accounts create --slug SLUG [--name NAME] [--included N] [--overage] [--unlimited]
  accounts get ID|SLUG
  accounts list
  accounts set ID|SLUG [--disabled|--enabled] [--status ...] [--included N] [--overage|--no-overage] [--unlimited|--limited]
  accounts usage ID|SLUG [--days N]
  accounts invite ID|SLUG

flightstatus accounts SUBCOMMAND --help shows each one.`,
  'accounts create': db(`Usage: flightstatus accounts create --slug SLUG [--name NAME] [--plan PLAN | --included N [--overage]] [--unlimited] [--url URL]

Creates an account. --plan PLAN subscribes it to a plan of the catalogue (priced, invoiced;
docs/billing.md); --included N gives it a custom allowance of N credits per 30-day window instead
(not priced), --overage serving requests past it. The first window starts at the service's now.
--unlimited makes it an unmetered internal account.`),
  'accounts get': db(`Usage: flightstatus accounts get ID|SLUG [--url URL]

Shows an account: subscription, credits of the current window, request count and keys.`),
  'accounts list': db(`Usage: flightstatus accounts list [--url URL]

Lists every account: id, slug, name, disabled.`),
  'accounts set': db(`Usage: flightstatus accounts set ID|SLUG [options] [--url URL]

  --disabled | --enabled          refuse or serve the account's requests
  --status STATUS                 active, canceled, past_due or none (active needs a plan)
  --plan PLAN                     subscribe to a catalogue plan: at once for a first subscription,
                                  otherwise from the next window (the current one keeps its plan)
  --included N                    a custom allowance per window (at once; replaces a catalogue plan)
  --overage | --no-overage        serve past the allowance, or refuse with 429
  --unlimited | --limited         unmetered internal account, or metered
  --gateway-customer ID           the account's Stripe customer (cus_...); "" clears
  --payment-method ID             the saved payment method Stripe charges (pm_...); "" clears

At least one change is needed.`),
  'accounts usage': db(`Usage: flightstatus accounts usage ID|SLUG [--days N] [--url URL]

Metered requests per UTC day over the last N days up to today (default 30, at most 366).`),
  'accounts invite': db(`Usage: flightstatus accounts invite ID|SLUG [--url URL]

Prints a one-time link (data.link, valid 7 days) with which a person creates their dashboard sign-in
for this account: how people join when sign-up is off (FLIGHTSTATUS_SIGNUP_PLAN=off). The link is
built on FLIGHTSTATUS_PUBLIC_URL, else http://localhost:PORT.`),
  keys: `Usage: flightstatus keys <create|disable|enable> ...

  keys create --account ID|SLUG --name NAME
  keys disable KEY_ID
  keys enable KEY_ID

flightstatus keys SUBCOMMAND --help shows each one.`,
  'keys create': db(`Usage: flightstatus keys create --account ID|SLUG --name NAME [--url URL]

Creates an API key; the plaintext (flt_...) is in data.key, shown this once.`),
  'keys disable': db(`Usage: flightstatus keys disable KEY_ID [--url URL]

Disables a key: its requests get 403 from then on.`),
  'keys enable': db(`Usage: flightstatus keys enable KEY_ID [--url URL]

Enables a disabled key again.`),
  plans: `Usage: flightstatus plans <create|list|get> ...

  plans create --id ID --currency EUR --fee 49.00 --included N [--name NAME] [--overage --overage-price 0.002]
  plans list
  plans get ID

flightstatus plans SUBCOMMAND --help shows each one.`,
  'plans create': db(`Usage: flightstatus plans create --id ID --currency CUR --fee AMOUNT --included N [--name NAME] [--overage --overage-price PRICE] [--url URL]

Adds a plan to the catalogue: ID (e.g. starter: lower-case letters, digits, inner hyphens), its
currency (ISO 4217: EUR, GBP, USD…), its monthly fee as a decimal in that currency (49.00), the
credits included per 30-day window, and with --overage the price of each request past them
(0.002). Without --overage requests past the allowance are refused (429). Amounts are exact.`),
  'plans list': db(`Usage: flightstatus plans list [--url URL]

Lists the plan catalogue.`),
  'plans get': db(`Usage: flightstatus plans get ID [--url URL]

Shows one plan.`),
  invoices: `Usage: flightstatus invoices <list|get|pay|void|uncollectible|run> ...

  invoices list [--account ID|SLUG] [--state STATE] [--kind overage|fee] [--month YYYY-MM] [--limit N]
  invoices get INVOICE_ID
  invoices pay INVOICE_ID [--reason TEXT]
  invoices void INVOICE_ID [--reason TEXT]
  invoices uncollectible INVOICE_ID [--reason TEXT]
  invoices run --month YYYY-MM

flightstatus invoices SUBCOMMAND --help shows each one.`,
  'invoices list': db(`Usage: flightstatus invoices list [--account ID|SLUG] [--state draft|open|paid|uncollectible|void] [--kind overage|fee] [--month YYYY-MM] [--limit N] [--url URL]

Lists invoices of every account (or one), newest first, at most --limit (default 100, at most 500).
--month keeps those whose period starts in that month.`),
  'invoices get': db(`Usage: flightstatus invoices get INVOICE_ID [--url URL]

Shows an invoice with its lines and every change it went through (states, charge attempts).`),
  'invoices pay': db(`Usage: flightstatus invoices pay INVOICE_ID [--reason TEXT] [--url URL]

Marks an open (or uncollectible) invoice paid, e.g. when a bank transfer arrived. A past-due account
with no other overdue invoice is active again at once.`),
  'invoices void': db(`Usage: flightstatus invoices void INVOICE_ID [--reason TEXT] [--url URL]

Voids a draft or open invoice issued by mistake; it keeps its number. Releases a past-due account.`),
  'invoices uncollectible': db(`Usage: flightstatus invoices uncollectible INVOICE_ID [--reason TEXT] [--url URL]

Writes an open invoice off (no more charges). Releases a past-due account; it can still be paid later.`),
  'invoices run': db(`Usage: flightstatus invoices run --month YYYY-MM [--url URL]

Invoices the overage of a calendar month (UTC) again: writes the invoices that are missing and opens
drafts; never a second invoice for an account and month. The month must have ended, plus the grace
period (FLIGHTSTATUS_BILLING_GRACE_MINUTES). The running service's job charges what is due.`),
  clock: `Usage: flightstatus clock [show|advance|set] ...

  clock [show] [--url URL]               the running service's clock and periodic jobs
  clock advance DURATION [--url URL]     move a manual clock forward (90s, 30m, 2h, 1d, 1h30m)
  clock set TIME [--url URL]             move a manual clock to an ISO 8601 time with its zone

These call the running service's operator API at http://HOST:PORT (or --url) with
FLIGHTSTATUS_ADMIN_TOKEN, and print its JSON answer on stdout.`,
  'clock show': `Usage: flightstatus clock show [--url URL]    (or: flightstatus clock [--url URL])

Prints the running service's clock (now, mode) and its periodic jobs with their next run.`,
  'clock advance': `Usage: flightstatus clock advance DURATION [--url URL]

Moves the running service's manual clock forward by DURATION (units s, m, h, d, combinable: 1h30m;
at most 366 days), running every periodic job that falls due on the way before it answers.`,
  'clock set': `Usage: flightstatus clock set TIME [--url URL]

Moves the running service's manual clock to TIME (ISO 8601 with its zone, e.g. 2026-03-02T00:00:00Z;
a bare date is its UTC midnight), at most 366 days ahead, running every periodic job that falls due
on the way. The clock never goes back.`,
  sim: `Usage: flightstatus sim <flights|calibrate> ...

  sim flights --date DATE [--airport IATA] [--status STATUS] [--operation OPERATION] [--table] [--url URL]
  sim calibrate [--from DATE] [--days N] [--url URL]

Computed in this process from FLIGHTSTATUS_SIM_SEED; no database needed. Dates relative to now
(today, yesterday, the default --from) are on the running service's clock when it answers (at --url,
else HOST:PORT), else on the configured one.`,
  'sim flights': `Usage: flightstatus sim flights --date DATE [--airport IATA] [--status STATUS] [--operation OPERATION] [--table] [--url URL]

The simulated world's flights of DATE (YYYY-MM-DD, or today or yesterday on the running service's
clock, else the configured one) with their true outcome. --status delayed|cancelled|diverted|on_time, --operation
passenger|cargo|military|private; JSON on stdout, or a text table with --table.`,
  'sim calibrate': `Usage: flightstatus sim calibrate [--from DATE] [--days N] [--url URL]

The simulated delay statistics over N days (default 28) from DATE (default 28 days ago) beside the
published figures, as the table in docs/simulation.md.`,
  providers: `Usage: flightstatus providers check

  providers check                     call each configured provider once and say whether its key works

flightstatus providers check --help shows it.`,
  'providers check': `Usage: flightstatus providers check

Calls each provider of FLIGHTSTATUS_PROVIDERS once, in order, with its configured key and URL (the
cheapest call it has; it counts against the plan like any other), and prints {provider, ok, message,
durationMs} for each. Exit code 0 when every provider answered, 1 when one did not (each failure is
also a line on stderr). The simulated world needs no key and is always ok.`,
  help: `Usage: flightstatus help [COMMAND [SUBCOMMAND]]

Prints the list of commands, or the help of one command.`,
};

/** The commands that have subcommands, and the subcommand run when none is named. */
const SUBCOMMANDS: Record<string, string[]> = {
  accounts: ['create', 'get', 'list', 'set', 'usage', 'invite'],
  keys: ['create', 'disable', 'enable'],
  plans: ['create', 'list', 'get'],
  invoices: ['list', 'get', 'pay', 'void', 'uncollectible', 'run'],
  clock: ['show', 'advance', 'set'],
  sim: ['flights', 'calibrate'],
  providers: ['check'],
};

/**
 * The help topic named by leading words (`accounts create`), or an error message. Words past the
 * subcommand are its arguments (`accounts get acme --help` is the help of `accounts get`).
 */
export function helpTopic(words: string[]): { topic: string } | { error: string } {
  const [command, sub] = words;
  if (command === undefined) return { topic: '' };
  if (!(command in HELP)) return { error: `unknown command "${command}"` };
  const subs = SUBCOMMANDS[command];
  if (!subs || sub === undefined) return { topic: command };
  if (!subs.includes(sub)) return { error: `unknown ${command} command "${sub}"` };
  return { topic: `${command} ${sub}` };
}

export function helpText(topic: string): string {
  return topic === '' ? USAGE : HELP[topic]!;
}
