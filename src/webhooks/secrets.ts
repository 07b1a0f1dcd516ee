// Endpoint signing secrets. The service must read a secret back to sign with it, so it cannot store a
// hash, so secrets are sealed with AES-256-GCM (the endpoint id as associated data, so a sealed secret
// copied onto another row does not open). The key comes from FLIGHTSTATUS_WEBHOOK_SECRET_KEY or, on
// SQLite, a key file (keyfile.ts); secrets stored in clear by earlier versions are sealed at start.
// Crypto only, nothing from the database: config/webhooks.ts reads the key with parseSecretKey.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { randomBase62 } from '../ids.js';

export const SECRET_PREFIX = 'whsec_';
export const SEALED_PREFIX = 'sealed:v1:';

/** `whsec_` and 43 base62 characters (256 random bits). */
export function newSecret(): string {
  return SECRET_PREFIX + randomBase62(43);
}

export class SecretKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretKeyError';
  }
}

export class SecretBox {
  /**
   * `key`: 32 bytes, or null to store secrets as issued (unit tests only: the service always has a
   * key, src/webhooks/keyfile.ts). `source` names where the key came from, for error messages.
   */
  constructor(
    private readonly key: Buffer | null,
    private readonly source = 'FLIGHTSTATUS_WEBHOOK_SECRET_KEY',
  ) {
    if (key && key.length !== 32) throw new SecretKeyError('the webhook secret key must be 32 bytes');
  }

  get encrypts(): boolean {
    return this.key !== null;
  }

  /** What to store for `secret` on endpoint `endpointId`. */
  seal(endpointId: string, secret: string): string {
    if (!this.key) return secret;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(endpointId));
    const sealed = Buffer.concat([iv, cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return SEALED_PREFIX + sealed.toString('base64');
  }

  /** Whether `stored` is sealed (rather than a secret kept in clear by an earlier version). */
  isSealed(stored: string): boolean {
    return stored.startsWith(SEALED_PREFIX);
  }

  /** The secret from what was stored; throws SecretKeyError when it cannot be opened. */
  open(endpointId: string, stored: string): string {
    if (!stored.startsWith(SEALED_PREFIX)) return stored;
    if (!this.key) {
      throw new SecretKeyError('webhook secrets are encrypted but FLIGHTSTATUS_WEBHOOK_SECRET_KEY is not set');
    }
    const sealed = Buffer.from(stored.slice(SEALED_PREFIX.length), 'base64');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, sealed.subarray(0, 12));
      decipher.setAAD(Buffer.from(endpointId));
      decipher.setAuthTag(sealed.subarray(sealed.length - 16));
      return Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      throw new SecretKeyError(`a webhook secret does not open with ${this.source} (was the key changed?)`);
    }
  }
}
