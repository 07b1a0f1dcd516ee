// `flightstatus plans …`: the operator's plan catalogue (docs/billing.md), through the billing
// capability's plans service.
import { integer, parse, required, UsageError } from './args.js';
import type { Command } from './commands.js';
import { databaseCommand, withDatabaseNote, type Action } from './database.js';
import { print } from './output.js';

const help = {
  plans: `Usage: flightstatus plans <create|list|get> ...

  plans create --id ID --currency EUR --fee 49.00 --included N [--name NAME] [--overage --overage-price 0.002]
  plans list
  plans get ID

flightstatus plans SUBCOMMAND --help shows each one.`,
  'plans create': withDatabaseNote(`Usage: flightstatus plans create --id ID --currency CUR --fee AMOUNT --included N [--name NAME] [--overage --overage-price PRICE] [--url URL]

Adds a plan to the catalogue: ID (e.g. starter: lower-case letters, digits, inner hyphens), its
currency (ISO 4217: EUR, GBP, USD…), its monthly fee as a decimal in that currency (49.00), the
credits included per 30-day window, and with --overage the price of each request past them
(0.002). Without --overage requests past the allowance are refused (429). Amounts are exact.`),
  'plans list': withDatabaseNote(`Usage: flightstatus plans list [--url URL]

Lists the plan catalogue.`),
  'plans get': withDatabaseNote(`Usage: flightstatus plans get ID [--url URL]

Shows one plan.`),
};


function plansCommand(verb: string | undefined, rest: string[]): Action {
  switch (verb) {
    case 'create': {
      const { values } = parse(rest, {
        id: { type: 'string' },
        name: { type: 'string' },
        currency: { type: 'string' },
        fee: { type: 'string' },
        included: { type: 'string' },
        overage: { type: 'boolean' },
        'overage-price': { type: 'string' },
      });
      if (values['overage-price'] !== undefined && !values.overage) throw new UsageError('--overage-price needs --overage');
      const input = {
        id: required(values.id, '--id'),
        name: values.name ?? required(values.id, '--id'),
        currency: required(values.currency, '--currency'),
        monthlyFee: required(values.fee, '--fee'),
        included: integer(required(values.included, '--included'), '--included'),
        overage: values.overage ?? false,
        overagePrice: values['overage-price'],
      };
      return async ({ plans }) => print(await plans.create(input));
    }
    case 'list':
      parse(rest, {}, 0);
      return async ({ plans }) => print({ kind: 'ok', value: { plans: await plans.list() } });
    case 'get': {
      const { positionals } = parse(rest, {}, 1);
      return async ({ plans }) => print(await plans.get(positionals[0]!));
    }
    default:
      throw new UsageError(verb === undefined ? 'plans needs a command: create, list or get' : `unknown plans command "${verb}"`);
  }
}

export const plans: Command = { help, json: true, run: databaseCommand(plansCommand) };
