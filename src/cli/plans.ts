// `flightstatus plans …`: the operator's plan catalogue (docs/billing.md), through the billing
// capability's plans service.
import { integer, parse, required, UsageError } from './args.js';
import type { Command } from './commands.js';
import { databaseCommand, withDatabaseNote, type Action } from './database.js';
import { print } from './output.js';

const help = {
  plans: `Usage: flightstatus plans <create|list|get|offer|withdraw> ...

  plans create --id ID --currency EUR --fee 49.00 --included N [--name NAME] [--overage --overage-price 0.002] [--self-service]
  plans list
  plans get ID
  plans offer ID        customers may switch to it on the dashboard (self-service)
  plans withdraw ID     no longer offered (accounts on it keep it)

flightstatus plans SUBCOMMAND --help shows each one.`,
  'plans offer': withDatabaseNote(`Usage: flightstatus plans offer ID [--url URL]

Offers the plan for customers to switch to on the dashboard's Billing page (from their next 30-day
window, in their plan's currency). Its terms never change.`),
  'plans withdraw': withDatabaseNote(`Usage: flightstatus plans withdraw ID [--url URL]

Stops offering the plan on the dashboard; accounts on it keep it.`),
  'plans create':
    withDatabaseNote(`Usage: flightstatus plans create --id ID --currency CUR --fee AMOUNT --included N [--name NAME] [--overage --overage-price PRICE] [--self-service] [--url URL]

Adds a plan to the catalogue: ID (e.g. starter: lower-case letters, digits, inner hyphens), its
currency (ISO 4217: EUR, GBP, USD…), its monthly fee as a decimal in that currency (49.00), the
credits included per 30-day window, and with --overage the price of each request past them
(0.002). Without --overage requests past the allowance are refused (429). Amounts are exact.
--self-service offers it to customers on the dashboard (plans offer / withdraw change that later).`),
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
        'self-service': { type: 'boolean' },
      });
      if (values['overage-price'] !== undefined && !values.overage)
        throw new UsageError('--overage-price needs --overage');
      const input = {
        id: required(values.id, '--id'),
        name: values.name ?? required(values.id, '--id'),
        currency: required(values.currency, '--currency'),
        monthlyFee: required(values.fee, '--fee'),
        included: integer(required(values.included, '--included'), '--included'),
        overage: values.overage ?? false,
        overagePrice: values['overage-price'],
        selfService: values['self-service'] ?? false,
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
    case 'offer':
    case 'withdraw': {
      const { positionals } = parse(rest, {}, 1);
      return async ({ plans }) => print(await plans.setSelfService(positionals[0]!, verb === 'offer'));
    }
    default:
      throw new UsageError(
        verb === undefined
          ? 'plans needs a command: create, list, get, offer or withdraw'
          : `unknown plans command "${verb}"`,
      );
  }
}

export const plans: Command = { help, json: true, run: databaseCommand(plansCommand) };
