// `flightstatus migrate`: applies pending migrations to the running service's database (the same
// check as every database command: running-service.ts) and seals the webhook secrets as start does.
import type { Config } from '../config.js';
import { parse, takeUrl } from './args.js';
import type { Command } from './commands.js';
import { withDatabaseNote } from './database.js';
import { print } from './output.js';

const help = {
  migrate: withDatabaseNote(`Usage: flightstatus migrate [--url URL]

Applies pending database migrations and prints {database, applied}.`),
};

async function migrateCommand(config: Config, argv: string[]): Promise<number> {
  const { url, rest } = takeUrl(argv);
  parse(rest, {}, 0);
  const { openForCommand } = await import('./running-service.js');
  const { db, applied } = await openForCommand(config, url);
  try {
    // As the service does at start, after migrations: the same key (file), every secret sealed.
    const { prepareSecrets } = await import('../webhooks/index.js');
    const { choice, sealed } = await prepareSecrets(db, config.database, config.webhooks.secretKey);
    return print({
      kind: 'ok',
      value: {
        database: db.description,
        applied,
        webhookSecretKey: choice.file ?? choice.source,
        sealedSecrets: sealed,
      },
    });
  } finally {
    await db.close();
  }
}

export const migrate: Command = { help, json: true, run: migrateCommand };
