// `flightstatus accounts …`: the customers, managed straight on the database through the accounts,
// users and metering services.
import { DAY } from '../clock.js';
import { integer, parse, required, UsageError } from './args.js';
import type { Command } from './commands.js';
import { databaseCommand, withDatabaseNote, type Action } from './database.js';
import { print } from './output.js';

const help = {
  accounts: `Usage: flightstatus accounts <create|get|list|set|billing|usage|invite> ...

  accounts create --slug SLUG [--name NAME] [--included N] [--overage] [--unlimited]
  accounts get ID|SLUG
  accounts list
  accounts set ID|SLUG [--disabled|--enabled] [--status ...] [--included N] [--overage|--no-overage] [--unlimited|--limited]
  accounts billing ID|SLUG [--name TEXT] [--address TEXT] [--country CC] [--vat-id ID] [--email ADDRESS]
  accounts usage ID|SLUG [--days N]
  accounts invite ID|SLUG

flightstatus accounts SUBCOMMAND --help shows each one.`,
  'accounts create':
    withDatabaseNote(`Usage: flightstatus accounts create --slug SLUG [--name NAME] [--plan PLAN | --included N [--overage]] [--unlimited] [--url URL]

Creates an account. --plan PLAN subscribes it to a plan of the catalogue (priced, invoiced;
docs/billing.md); --included N gives it a custom allowance of N credits per 30-day window instead
(not priced), --overage serving requests past it. The first window starts at the service's now.
--unlimited makes it an unmetered internal account.`),
  'accounts get': withDatabaseNote(`Usage: flightstatus accounts get ID|SLUG [--url URL]

Shows an account: subscription, credits of the current window, request count and keys.`),
  'accounts list': withDatabaseNote(`Usage: flightstatus accounts list [--url URL]

Lists every account: id, slug, name, disabled.`),
  'accounts set': withDatabaseNote(`Usage: flightstatus accounts set ID|SLUG [options] [--url URL]

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
  'accounts billing':
    withDatabaseNote(`Usage: flightstatus accounts billing ID|SLUG [--name TEXT] [--address TEXT] [--country CC] [--vat-id ID] [--email ADDRESS] [--url URL]

Shows the account's billing details, or changes those given ("" clears one): the legal name and
postal address its invoices are addressed to (address lines separated by ";"), its country (ISO
3166-1 alpha-2, which decides the VAT), its VAT id (format and check digits are checked offline; not
against VIES) and the billing email invoices are mailed to (else the account's owner). An invoice
keeps the details it was issued with.`),
  'accounts usage': withDatabaseNote(`Usage: flightstatus accounts usage ID|SLUG [--days N] [--url URL]

Metered requests per UTC day over the last N days up to today (default 30, at most 366).`),
  'accounts invite': withDatabaseNote(`Usage: flightstatus accounts invite ID|SLUG [--url URL]

Prints a one-time link (data.link, valid 7 days) with which a person creates their dashboard sign-in
for this account: how people join when sign-up is off (FLIGHTSTATUS_SIGNUP_PLAN=off). The link is
built on FLIGHTSTATUS_PUBLIC_URL, else http://localhost:PORT.`),
};

function accountsCommand(verb: string | undefined, rest: string[]): Action {
  switch (verb) {
    case 'create': {
      const { values } = parse(rest, {
        slug: { type: 'string' },
        name: { type: 'string' },
        included: { type: 'string' },
        overage: { type: 'boolean' },
        unlimited: { type: 'boolean' },
        plan: { type: 'string' },
      });
      const included = values.included === undefined ? undefined : integer(values.included, '--included');
      if (values.overage && included === undefined) throw new UsageError('--overage needs --included N');
      if (values.plan !== undefined && included !== undefined)
        throw new UsageError('--plan and --included cannot be given together');
      const input = {
        slug: required(values.slug, '--slug'),
        name: values.name,
        unlimited: values.unlimited ?? false,
        plan: included === undefined ? undefined : { included, overage: values.overage ?? false },
        planId: values.plan,
      };
      return async ({ accounts }) => print(await accounts.createAccount(input));
    }
    case 'get': {
      const { positionals } = parse(rest, {}, 1);
      return async ({ accounts }) => print(await accounts.describe(positionals[0]!));
    }
    case 'list': {
      parse(rest, {}, 0);
      return async ({ accounts }) => {
        const rows = await accounts.listAccounts();
        return print({
          kind: 'ok',
          value: { accounts: rows.map((r) => ({ id: r.id, slug: r.slug, name: r.name, disabled: r.disabled === 1 })) },
        });
      };
    }
    case 'set':
      return setAccount(rest);
    case 'invite': {
      // A one-time link to the dashboard's sign-up for this account (docs/dashboard.md).
      const { positionals } = parse(rest, {}, 1);
      return async ({ accounts, users, baseUrl }) => {
        const account = await accounts.describe(positionals[0]!);
        if (account.kind !== 'ok') return print(account);
        const { token, expiresAt } = await users.invite(account.value.id);
        return print({
          kind: 'ok',
          value: {
            accountId: account.value.id,
            link: `${baseUrl}/dashboard/invite/${token}`,
            expiresAt: new Date(expiresAt).toISOString(),
          },
        });
      };
    }
    case 'billing': {
      const { values, positionals } = parse(
        rest,
        {
          name: { type: 'string' },
          address: { type: 'string' },
          country: { type: 'string' },
          'vat-id': { type: 'string' },
          email: { type: 'string' },
        },
        1,
      );
      const input = {
        name: values.name,
        address: values.address,
        country: values.country,
        vatId: values['vat-id'],
        email: values.email,
      };
      return async ({ accounts, db, clock }) => {
        const account = await accounts.describe(positionals[0]!);
        if (account.kind !== 'ok') return print(account);
        const { BuyerDetails } = await import('../billing/buyer.js');
        const buyers = new BuyerDetails({ db, clock });
        const changed = Object.values(input).some((v) => v !== undefined)
          ? await buyers.set(account.value.id, input, '--', { confirmsEmail: true })
          : { kind: 'ok' as const, value: await buyers.get(account.value.id) };
        if (changed.kind !== 'ok')
          return print({ ...changed, message: changed.message.replaceAll('--vatId', '--vat-id') });
        return print({ kind: 'ok', value: { accountId: account.value.id, billing: changed.value } });
      };
    }
    case 'usage': {
      const { values, positionals } = parse(rest, { days: { type: 'string' } }, 1);
      const days = values.days === undefined ? 30 : integer(values.days, '--days');
      if (days < 1 || days > 366) throw new UsageError('--days must be from 1 to 366');
      return async ({ accounts, metering, clock }) => {
        const account = await accounts.describe(positionals[0]!);
        if (account.kind !== 'ok') return print(account);
        const to = Math.floor(clock.now() / DAY) * DAY + DAY;
        const rows = await metering.usageByDay(account.value.id, to - days * DAY, to);
        return print({ kind: 'ok', value: { accountId: account.value.id, days: rows } });
      };
    }
    default:
      throw new UsageError(
        verb === undefined
          ? 'accounts needs a command: create, get, list, set, billing, invite or usage'
          : `unknown accounts command "${verb}"`,
      );
  }
}

function setAccount(argv: string[]): Action {
  const { values, positionals } = parse(
    argv,
    {
      disabled: { type: 'boolean' },
      enabled: { type: 'boolean' },
      status: { type: 'string' },
      included: { type: 'string' },
      overage: { type: 'boolean' },
      'no-overage': { type: 'boolean' },
      unlimited: { type: 'boolean' },
      limited: { type: 'boolean' },
      plan: { type: 'string' },
      'gateway-customer': { type: 'string' },
      'payment-method': { type: 'string' },
    },
    1,
  );
  const exclusive = (a: boolean | undefined, b: boolean | undefined, names: string): boolean | undefined => {
    if (a && b) throw new UsageError(`${names} cannot be given together`);
    return a ? true : b ? false : undefined;
  };
  const status = values.status;
  if (status !== undefined && !['active', 'canceled', 'past_due', 'none'].includes(status)) {
    throw new UsageError('--status must be one of active, canceled, past_due, none');
  }
  const overage = exclusive(values.overage, values['no-overage'], '--overage and --no-overage');
  // Without --overage/--no-overage the account keeps its overage setting.
  const included = values.included === undefined ? undefined : integer(values.included, '--included');
  const patch = {
    disabled: exclusive(values.disabled, values.enabled, '--disabled and --enabled'),
    unlimited: exclusive(values.unlimited, values.limited, '--unlimited and --limited'),
    subscriptionStatus: status as 'active' | 'canceled' | 'past_due' | 'none' | undefined,
    planId: values.plan,
    gatewayCustomer: values['gateway-customer'],
    paymentMethod: values['payment-method'],
  };
  if (values.plan !== undefined && (included !== undefined || overage !== undefined))
    throw new UsageError('--plan cannot be given with --included or --overage');
  if (Object.values(patch).every((v) => v === undefined) && included === undefined && overage === undefined) {
    throw new UsageError('accounts set needs at least one change');
  }
  return async ({ accounts }) => {
    let plan: { included: number; overage?: boolean } | undefined;
    if (included !== undefined) {
      plan = { included, overage };
    } else if (overage !== undefined) {
      const current = await accounts.describe(positionals[0]!);
      if (current.kind !== 'ok') return print(current);
      if (!current.value.subscription.plan)
        throw new UsageError('--overage needs --included N on an account without a plan');
      plan = { included: current.value.subscription.plan.included, overage };
    }
    return print(await accounts.updateAccount(positionals[0]!, { ...patch, plan }));
  };
}

export const accounts: Command = { help, json: true, run: databaseCommand(accountsCommand) };
