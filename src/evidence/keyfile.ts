// Where the evidence key comes from (docs/evidence.md, "The key"), as the webhook secrets' key does
// (webhooks/keyfile.ts):
// - FLIGHTSTATUS_EVIDENCE_KEY when it is set, on either database;
// - on SQLite without it, a key generated on first start and kept beside the database
//   (`<database file>.evidence-key`, PKCS#8 PEM, mode 0600);
// - on PostgreSQL without it, no key: the service starts and the evidence routes answer 503 naming
//   the setting (docs/decisions.md, "The evidence PDF": refusing to start would stop every existing
//   PostgreSQL deployment at its upgrade for a feature it may not use). A key file on one host cannot
//   serve the other processes sharing the database, and each process making its own key would sign
//   with keys nobody can tell apart.
import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { chmodSync, existsSync, linkSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { parseEvidenceKey, type DatabaseTarget } from '../config.js';
import type { Logger } from '../logger.js';

export const EVIDENCE_KEY_VARIABLE = 'FLIGHTSTATUS_EVIDENCE_KEY';

/** The key file of a SQLite database: beside it, named after it. */
export const evidenceKeyFilePath = (sqlitePath: string) => `${sqlitePath}.evidence-key`;

export type EvidenceKeyChoice =
  | {
      kind: 'key';
      key: KeyObject;
      /** Where the key came from, for the log (never the key itself). */
      source: string;
      file: string | null;
      created: boolean;
      /** The key file can be read by others than its owner (it should be 0600). */
      looseMode: boolean;
    }
  | { kind: 'missing'; reason: string };

/** The message of the evidence routes' 503 when no key is configured. */
export const MISSING_KEY_MESSAGE =
  `Evidence PDFs are not available on this service: ${EVIDENCE_KEY_VARIABLE} is not set, and the database is PostgreSQL ` +
  '(every process sharing it must sign with the same key). The operator sets it to an Ed25519 private key ' +
  '(openssl genpkey -algorithm ed25519) and restarts; no credit was taken.';

export class EvidenceKeyError extends Error {
  override name = 'EvidenceKeyError';
}

function readKeyFile(path: string): { key: KeyObject; looseMode: boolean } {
  const key = parseEvidenceKey(readFileSync(path, 'utf8'));
  if (!key)
    throw new EvidenceKeyError(
      `The evidence key file ${path} does not hold an Ed25519 private key (PKCS#8 PEM); restore it from your backup, or remove it to make a new key`,
    );
  return { key, looseMode: (statSync(path).mode & 0o077) !== 0 };
}

/**
 * Creates the key file with its whole content at once: a private temporary file linked to its name,
 * which fails if another process created it first; then that one's key is used.
 */
function createKeyFile(path: string): { key: KeyObject; created: boolean; looseMode: boolean } {
  const { privateKey } = generateKeyPairSync('ed25519');
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temporary, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600, flag: 'wx' });
  try {
    chmodSync(temporary, 0o600);
    linkSync(temporary, path);
    return { key: privateKey, created: true, looseMode: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return { ...readKeyFile(path), created: false };
  } finally {
    unlinkSync(temporary);
  }
}

/** The evidence key, per the rules at the top of this file. */
export function chooseEvidenceKey(target: DatabaseTarget, configured: KeyObject | null): EvidenceKeyChoice {
  if (configured)
    return {
      kind: 'key',
      key: configured,
      source: EVIDENCE_KEY_VARIABLE,
      file: null,
      created: false,
      looseMode: false,
    };
  if (target.kind === 'postgres') return { kind: 'missing', reason: MISSING_KEY_MESSAGE };
  if (target.path === ':memory:') {
    const { privateKey } = generateKeyPairSync('ed25519');
    return {
      kind: 'key',
      key: privateKey,
      source: 'a key kept in memory (in-memory database)',
      file: null,
      created: true,
      looseMode: false,
    };
  }
  const file = evidenceKeyFilePath(target.path);
  const found = existsSync(file) ? { ...readKeyFile(file), created: false } : createKeyFile(file);
  return { kind: 'key', ...found, source: `the key file ${file}`, file };
}

/** What the start-up log says of the key: where it comes from and its public fingerprint, never the key. */
export function reportEvidenceKey(logger: Logger, choice: EvidenceKeyChoice, fingerprint: string | null): void {
  if (choice.kind === 'missing') {
    logger.warn(
      `evidence PDFs are off: ${EVIDENCE_KEY_VARIABLE} is not set on PostgreSQL (the evidence routes answer 503)`,
    );
    return;
  }
  const created = choice.created && choice.file ? ' (created now: back it up with the database)' : '';
  logger.info(
    { keySource: choice.file ? 'file' : choice.source, keyFile: choice.file, fingerprint },
    `evidence PDFs are signed with ${choice.source}${created}`,
  );
  if (choice.looseMode)
    logger.warn(
      { keyFile: choice.file },
      `the evidence key file ${choice.file} can be read by other users; chmod 600 it`,
    );
}
