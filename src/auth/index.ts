// Authentication: API keys read from the request's credential headers, hashed with SHA-256 and
// looked up per dialect, judged against the account's state (docs/metering.md).
export { hashedCredential, judge, judgePrincipal, type AuthOutcome } from './service.js';
import { forDialect, type Database } from '../db/index.js';
import type { KeyLookup } from './principal.js';
import { PostgresKeyLookup } from './repository-postgres.js';
import { SqliteKeyLookup } from './repository-sqlite.js';

export { SqliteKeyLookup, PostgresKeyLookup };
export { generateKeyMaterial, hashKey, secretsEqual, isWellFormedKey } from './keys.js';
export { readCredential, credentialConflict, keyParametersIn, redactKeyParameters } from './credential.js';
export { versionOf, type KeyLookup, type Principal, type PrincipalVersion } from './principal.js';

/** The key lookup over this database's dialect (repository-sqlite.ts, repository-postgres.ts). */
export function createKeyLookup(db: Database): KeyLookup {
  return forDialect<KeyLookup>(db, {
    sqlite: (sqlite) => new SqliteKeyLookup(sqlite.sqlite, sqlite.group),
    postgres: (postgres) => new PostgresKeyLookup(postgres.pool),
  });
}
