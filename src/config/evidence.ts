// Evidence PDFs (docs/evidence.md): the Ed25519 key that signs them and the records they render.
import type { KeyObject } from 'node:crypto';
import { Type } from 'typebox';
import { parseEvidenceKey } from '../evidence/key.js';
import { capability, custom, invalid } from './setting.js';

export interface EvidenceConfig {
  /** The evidence signing key; null: a key file beside SQLite, none on PostgreSQL (evidence/keyfile.ts). */
  key: KeyObject | null;
}

export const evidence = capability({
  title: 'Evidence PDFs (docs/evidence.md)',
  settings: {
    FLIGHTSTATUS_EVIDENCE_KEY: custom({
      default: '',
      schema: Type.Union([Type.Unsafe<KeyObject>({ description: 'an Ed25519 private key' }), Type.Null()]),
      // The message never echoes the text: it is a private key.
      parse: (text) =>
        text === ''
          ? null
          : (parseEvidenceKey(text) ??
            invalid(
              'FLIGHTSTATUS_EVIDENCE_KEY must be an Ed25519 private key: PKCS#8 PEM (make one with: openssl genpkey -algorithm ed25519), ' +
                'or its 32-byte seed as 64 hex digits or base64',
            )),
      doc: 'Ed25519 private key that signs evidence PDFs (PKCS#8 PEM, or the 32-byte seed as hex or base64); on SQLite, empty means a key file generated beside the database; on PostgreSQL, empty turns evidence PDFs off (503) ([docs/evidence.md](docs/evidence.md#the-key))',
      comment:
        'Ed25519 private key that signs evidence PDFs and the records they render: PKCS#8 PEM (`openssl genpkey ' +
        '-algorithm ed25519`; line breaks as \\n on one line), or its 32-byte seed as 64 hex digits or base64. The same ' +
        'on every process. Empty on SQLite: a key is generated on first start into <database file>.evidence-key ' +
        '(mode 0600) beside the database; back it up with the database. Empty on PostgreSQL: the service starts, and ' +
        'the evidence routes answer 503 until it is set. Keep the key: documents signed with it are checked against ' +
        'its public half (GET /api/v1/evidence/key).',
    }),
  },
  build: (v): { evidence: EvidenceConfig } => ({ evidence: { key: v.FLIGHTSTATUS_EVIDENCE_KEY } }),
});
