// `flightstatus airports …`: the operator's additions to the airport catalogue (docs/airports.md,
// "Adding airports"), through the airports capability's additions service.
import { parse, UsageError } from './args.js';
import type { Command } from './commands.js';
import { databaseCommand, withDatabaseNote, type Action } from './database.js';
import { print } from './output.js';

const help = {
  airports: `Usage: flightstatus airports <list|add|remove> ...

  airports list                          the catalogue: the specification's 52 and the operator's additions
  airports add IATA [--city CITY] [--name NAME]
                                         add a reference airport (its boards are polled once an endpoint selects it)
  airports remove IATA                   remove an airport the operator added, once no endpoint selects it

flightstatus airports SUBCOMMAND --help shows each one.`,
  'airports list': withDatabaseNote(`Usage: flightstatus airports list [--url URL]

Lists the catalogue, each airport with its source (specification or operator) and when it was added.`),
  'airports add': withDatabaseNote(`Usage: flightstatus airports add IATA [--city CITY] [--name NAME] [--url URL]

Adds a reference airport (large or medium, with scheduled service) to the catalogue: customers may
select it for webhook endpoints they create or change from then on (no existing subscription widens),
and its boards are polled once one does, at 4 AeroDataBox requests a poll (docs/airports.md).
--city and --name replace the reference's wording (Frankfurt for "Frankfurt am Main").
A running service reads the catalogue again within 30 seconds.`),
  'airports remove': withDatabaseNote(`Usage: flightstatus airports remove IATA [--url URL]

Removes an airport the operator added, once no webhook endpoint selects it; the specification's 52 stay.`),
};

function airportsCommand(verb: string | undefined, rest: string[]): Action {
  switch (verb) {
    case 'list':
      parse(rest, {}, 0);
      return async ({ airports }) => {
        const list = await airports().list();
        return print({ kind: 'ok', value: { count: list.length, airports: list } });
      };
    case 'add': {
      const { values, positionals } = parse(rest, { city: { type: 'string' }, name: { type: 'string' } }, 1);
      const input = { iata: positionals[0]!, city: values.city, name: values.name };
      return async ({ airports }) => print(await airports().add(input));
    }
    case 'remove': {
      const { positionals } = parse(rest, {}, 1);
      return async ({ airports }) => print(await airports().remove(positionals[0]!));
    }
    default:
      throw new UsageError(
        verb === undefined ? 'airports needs a command: list, add or remove' : `unknown airports command "${verb}"`,
      );
  }
}

export const airports: Command = { help, json: true, run: databaseCommand(airportsCommand) };
