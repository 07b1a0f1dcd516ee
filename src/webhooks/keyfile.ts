// Where the key that seals webhook signing secrets at rest comes from, so that no deployment keeps
// them in clear (docs/operator.md, "Webhook secrets at rest"):
// - FLIGHTSTATUS_WEBHOOK_SECRET_KEY when it is set, on either database;
// - on SQLite without it, a key generated on first start and kept in a file beside the database
//   (`<database file>.webhook-key`, mode 0600), which the service and the CLI both use;
// - on PostgreSQL without it, nothing: the start stops and names the variable, because every process
//   sharing the database needs the same key and a file on one host cannot give it to the others.
// At start, after migrations, secrets still stored in clear (by an earlier version) are sealed in one
// transaction; running it again finds nothing left to seal.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, linkSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { parseSecretKey, type DatabaseTarget } from '../config.js';
import type { Database } from '../db/index.js';
import type { Logger } from '../logger.js';
import { webhookDialect } from './dialect.js';
import { SEALED_PREFIX, SecretBox, SecretKeyError } from './secrets.js';

export const KEY_VARIABLE = 'FLIGHTSTATUS_WEBHOOK_SECRET_KEY';

/** The key file of a SQLite database: beside it, named after it. */
export const keyFilePath = (sqlitePath: string) => `${sqlitePath}.webhook-key`;

export interface SecretKeyChoice {
  key: Buffer;
  /** Where the key came from, for messages and logs (never the key itself). */
  source: string;
  /** The key file, when the key lives in one. */
  file: string | null;
  /** The key file was created by this start. */
  created: boolean;
  /** The key file can be read by others than its owner (it should be 0600). */
  looseMode: boolean;
}

async function hasSealedSecrets(db: Database): Promise<boolean> {
  const row = await db.kysely
    .selectFrom('endpoints')
    .select('id')
    .where('secret', 'like', `${SEALED_PREFIX}%`)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Reads the key file; a file that holds no key stops the start (a new key would not open the sealed secrets). */
function readKeyFile(path: string): { key: Buffer; looseMode: boolean } {
  const key = parseSecretKey(readFileSync(path, 'utf8').trim());
  if (!key)
    throw new SecretKeyError(
      `The webhook secret key file ${path} does not hold a key (64 hex digits); restore it from your backup`,
    );
  return { key, looseMode: (statSync(path).mode & 0o077) !== 0 };
}

/**
 * Creates the key file with its whole content at once: written to a private temporary file, then
 * linked to its name, which fails if another process (a CLI command, a second service) created it
 * first; then that one's key is used.
 */
function createKeyFile(path: string): { key: Buffer; created: boolean; looseMode: boolean } {
  const key = randomBytes(32);
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temporary, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    chmodSync(temporary, 0o600);
    linkSync(temporary, path);
    return { key, created: true, looseMode: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return { ...readKeyFile(path), created: false };
  } finally {
    unlinkSync(temporary);
  }
}

/** The key to seal webhook secrets with, per the rules at the top of this file. */
export async function chooseSecretKey(
  db: Database,
  target: DatabaseTarget,
  configured: Buffer | null,
): Promise<SecretKeyChoice> {
  if (configured) return { key: configured, source: KEY_VARIABLE, file: null, created: false, looseMode: false };
  if (target.kind === 'postgres') {
    throw new SecretKeyError(
      `${KEY_VARIABLE} must be set when the database is PostgreSQL: webhook signing secrets are sealed with it at rest, and every ` +
        'process sharing the database needs the same key. Make one with: openssl rand -hex 32',
    );
  }
  if (target.path === ':memory:') {
    return {
      key: randomBytes(32),
      source: 'a key kept in memory (in-memory database)',
      file: null,
      created: true,
      looseMode: false,
    };
  }
  const file = keyFilePath(target.path);
  if (existsSync(file)) return { ...readKeyFile(file), source: `the key file ${file}`, file, created: false };
  if (await hasSealedSecrets(db)) {
    throw new SecretKeyError(
      `Webhook secrets in this database are sealed, but ${KEY_VARIABLE} is not set and the key file ${file} is missing: ` +
        'restore the key file, or set the variable to the key they were sealed with',
    );
  }
  return { ...createKeyFile(file), source: `the key file ${file}`, file };
}

/** Seals every secret still stored in clear, in one transaction; returns how many. Idempotent. */
export function sealPlaintextSecrets(db: Database, box: SecretBox): Promise<number> {
  return webhookDialect(db).sealPlaintextSecrets(box);
}

/**
 * At start (service and CLI), after migrations: the key, every secret sealed with it, and a check that
 * the sealed ones open (a wrong key stops the start here, not at every send).
 */
export async function prepareSecrets(
  db: Database,
  target: DatabaseTarget,
  configured: Buffer | null,
): Promise<{ box: SecretBox; choice: SecretKeyChoice; sealed: number }> {
  const choice = await chooseSecretKey(db, target, configured);
  const box = new SecretBox(choice.key, choice.source);
  await assertSecretsReadable(db, box);
  const sealed = await sealPlaintextSecrets(db, box);
  return { box, choice, sealed };
}

/** What the start-up log says of the key: where it comes from (never the key), a loose key file, what was sealed now. */
export function reportSecretKey(logger: Logger, choice: SecretKeyChoice, sealed: number): void {
  logger.info(
    {
      keySource: choice.file ? 'file' : choice.source,
      keyFile: choice.file,
      keyFileCreated: choice.created,
      sealedNow: sealed,
    },
    choice.file
      ? `webhook secrets are sealed at rest with the key in ${choice.file}${choice.created ? ' (created now: back it up with the database)' : ''}`
      : `webhook secrets are sealed at rest with ${choice.source}`,
  );
  if (choice.looseMode)
    logger.warn(
      { keyFile: choice.file },
      `the webhook secret key file ${choice.file} can be read by other users; chmod 600 it`,
    );
  if (sealed > 0) logger.info({ sealed }, `sealed ${sealed} webhook secrets stored in clear by an earlier version`);
}

/** At start-up: a sealed secret that does not open stops the start with the reason (not every send). */
export async function assertSecretsReadable(db: Database, box: SecretBox): Promise<void> {
  const row = await db.kysely
    .selectFrom('endpoints')
    .select(['id', 'secret'])
    .where('secret', 'like', `${SEALED_PREFIX}%`)
    .limit(1)
    .executeTakeFirst();
  if (row) box.open(row.id, row.secret);
}
