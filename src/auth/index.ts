export { hashedCredential, judge, judgePrincipal, type AuthOutcome } from './service.js';
export { createKeyLookup, type KeyLookup } from './repository.js';
export { SqliteKeyLookup } from './repository-sqlite.js';
export { PostgresKeyLookup } from './repository-postgres.js';
export { generateKeyMaterial, hashKey, secretsEqual, isWellFormedKey } from './keys.js';
export { readCredential, credentialConflict, keyParametersIn, redactKeyParameters } from './credential.js';
export { versionOf, type Principal, type PrincipalVersion } from './principal.js';
