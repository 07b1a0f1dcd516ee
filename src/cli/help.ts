// `flightstatus COMMAND [SUBCOMMAND] --help` (or -h, or `flightstatus help COMMAND [SUBCOMMAND]`)
// prints one help text on stdout and does nothing else: the list of commands below, or the help a
// command's file keeps beside its parser.
import { COMMANDS } from './commands.js';

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
  airports list|add IATA [--city CITY]|remove IATA
                                      the airport catalogue and the operator's additions (docs/airports.md)
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
  batch submit FILE [--wait] [--out FILE] [--skip-invalid] [--local-dates] --key KEY [--url URL]
                                      check a CSV of flights as a batch; --wait shows its progress
                                      and writes the results CSV
  batch status ID --key KEY           a batch's state, counts and progress
  batch results ID [--out FILE] [--only disrupted|owed|owed_not_at_risk] --key KEY
                                      a batch's results as CSV
  watch add --flight FLIGHT --date DATE [--origin IATA] [--reference REF] --endpoint ID --key KEY
  watch add FILE [--skip-invalid] --endpoint ID --key KEY
                                      watch flights for the account's webhook endpoints (one credit each)
  watch list [--state STATE] [--reference REF] [--date DATE] --key KEY
                                      the account's watches, newest first
  watch rm ID --key KEY               stop a watch
  evidence verify FILE.pdf [--key PUBLIC.pem | --url URL]
                                      check an evidence PDF's signatures (Ed25519 and PDF) and its record
  evidence key [--url URL]            the service's public evidence key (PEM)
  help [COMMAND [SUBCOMMAND]]         this text, or a command's own (also: COMMAND --help, -h)
  --version, -V                       the version of flightstatus

Configuration comes from the environment (and ./.env): DATABASE_URL, PORT, HOST,
FLIGHTSTATUS_ADMIN_TOKEN, FLIGHTSTATUS_SIM_SEED, LOG_LEVEL... See .env.example.
Exit codes: 0 done, 1 refused or failed, 2 usage error.`;

/** Every help text by topic: each command's and subcommand's, then the help command's own. */
export const HELP: Record<string, string> = {
  ...Object.fromEntries(Object.values(COMMANDS).flatMap((command) => Object.entries(command.help))),
  help: `Usage: flightstatus help [COMMAND [SUBCOMMAND]]

Prints the list of commands, or the help of one command.`,
};

/** A command's subcommands: the topics of its help past its own (`accounts create` → `create`). */
function subcommandsOf(command: string): string[] {
  const topics = Object.hasOwn(COMMANDS, command) ? Object.keys(COMMANDS[command]!.help) : [];
  return topics.filter((topic) => topic.startsWith(`${command} `)).map((topic) => topic.slice(command.length + 1));
}

/**
 * The help topic named by leading words (`accounts create`), or an error message. Words past the
 * subcommand are its arguments (`accounts get acme --help` is the help of `accounts get`).
 */
export function helpTopic(words: string[]): { topic: string } | { error: string } {
  const [command, sub] = words;
  if (command === undefined) return { topic: '' };
  if (!(command in HELP)) return { error: `unknown command "${command}"` };
  const subs = subcommandsOf(command);
  if (subs.length === 0 || sub === undefined) return { topic: command };
  if (!subs.includes(sub)) return { error: `unknown ${command} command "${sub}"` };
  return { topic: `${command} ${sub}` };
}

export function helpText(topic: string): string {
  return topic === '' ? USAGE : HELP[topic]!;
}
