// `flightstatus keys …`: API keys, created and switched off straight on the database through the
// accounts service.
import { parse, required, UsageError } from './args.js';
import type { Command } from './commands.js';
import { databaseCommand, withDatabaseNote, type Action } from './database.js';
import { print } from './output.js';

const help = {
  keys: `Usage: flightstatus keys <create|disable|enable> ...

  keys create --account ID|SLUG --name NAME
  keys disable KEY_ID
  keys enable KEY_ID

flightstatus keys SUBCOMMAND --help shows each one.`,
  'keys create': withDatabaseNote(`Usage: flightstatus keys create --account ID|SLUG --name NAME [--url URL]

Creates an API key; the plaintext (flt_...) is in data.key, shown this once.`),
  'keys disable': withDatabaseNote(`Usage: flightstatus keys disable KEY_ID [--url URL]

Disables a key: its requests get 403 from then on.`),
  'keys enable': withDatabaseNote(`Usage: flightstatus keys enable KEY_ID [--url URL]

Enables a disabled key again.`),
};

function keysCommand(verb: string | undefined, rest: string[]): Action {
  if (verb === 'create') {
    const { values } = parse(rest, { account: { type: 'string' }, name: { type: 'string' } });
    const account = required(values.account, '--account');
    const name = required(values.name, '--name');
    return async ({ accounts }) => print(await accounts.createKey(account, name));
  }
  if (verb === 'disable' || verb === 'enable') {
    const { positionals } = parse(rest, {}, 1);
    return async ({ accounts }) => print(await accounts.setKeyDisabled(positionals[0]!, verb === 'disable'));
  }
  throw new UsageError(
    verb === undefined ? 'keys needs a command: create, disable or enable' : `unknown keys command "${verb}"`,
  );
}

export const keys: Command = { help, json: true, run: databaseCommand(keysCommand) };
