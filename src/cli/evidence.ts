// `flightstatus evidence …`: check an evidence PDF against the service's public evidence key, and print
// that key (docs/evidence.md). Neither needs an account: the key is public, and the check is local.
import { readFile } from 'node:fs/promises';
import type { Config } from '../config.js';
import { parse, UsageError } from './args.js';
import type { Command } from './commands.js';
import { serviceBase } from './running-service.js';

const help = {
  evidence: `Usage: flightstatus evidence [verify|key] ...

  evidence verify FILE.pdf [--key PUBLIC.pem | --url URL]
                                      check an evidence PDF: its signature, and the record it carries
  evidence key [--url URL]            print the service's public evidence key (PEM)

--url is the service (default http://HOST:PORT); the key comes from its GET /api/v1/evidence/key.`,
  'evidence verify': `Usage: flightstatus evidence verify FILE.pdf [--key PUBLIC.pem | --url URL]

Checks that FILE.pdf is an evidence PDF the service produced, unaltered: the Ed25519 signature of
every byte before its last line, then the record it carries (record.json): its SHA-256 and its own
signature. The public key is read from --key (PEM, as \`flightstatus evidence key\` prints it), or
fetched from the service at --url (default http://HOST:PORT). Prints a JSON envelope: the flight, the
record's hash, the key's fingerprint and each check. Exit code 0 when every check holds, 1 otherwise,
with one line on stderr naming what failed.`,
  'evidence key': `Usage: flightstatus evidence key [--url URL]

Prints the public evidence key of the service at --url (default http://HOST:PORT) as PEM, for openssl
(docs/evidence.md) or \`evidence verify --key\`; its fingerprint (SHA-256 of the DER) goes to stderr.`,
};

interface ServedKey {
  publicKeyPem: string;
  fingerprint: string;
}

async function servedKey(config: Config, url: string | undefined): Promise<ServedKey & { from: string }> {
  const base = serviceBase(config, url);
  if (!base) throw new UsageError('PORT is 0: pass --url with the service address');
  let response: Response;
  try {
    response = await fetch(`${base}/api/v1/evidence/key`, { signal: AbortSignal.timeout(30_000) });
  } catch (error) {
    throw new Error(
      `no service answered at ${base} (${(error as Error).cause ?? (error as Error).message}); start it with npm start, or pass --url or --key`,
      { cause: error },
    );
  }
  const body = (await response.json().catch(() => null)) as {
    success?: boolean;
    data?: ServedKey;
    message?: string;
  } | null;
  if (!body?.success || !body.data?.publicKeyPem)
    throw new Error(
      body?.message ?? `${base} answered ${response.status} without the evidence key; is it the Flight Status Service?`,
    );
  return { ...body.data, from: `${base}/api/v1/evidence/key` };
}

async function readOrFail(file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, {
      cause: error,
    });
  }
}

async function verifyCommand(config: Config, argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { key: { type: 'string' }, url: { type: 'string' } }, 1);
  if (values.key !== undefined && values.url !== undefined) throw new UsageError('give --key or --url, not both');
  const { parsePublicKey, verifyEvidence } = await import('../evidence/index.js');
  const fail = (message: string, data?: unknown) => {
    process.stdout.write(`${JSON.stringify({ success: false, message, ...(data ? { data } : {}) }, null, 2)}\n`);
    process.stderr.write(`flightstatus: ${message}\n`);
    return 1;
  };
  try {
    const file = positionals[0]!;
    const pdf = await readOrFail(file);
    const source =
      values.key !== undefined
        ? { publicKeyPem: (await readOrFail(values.key)).toString('utf8'), from: values.key }
        : await servedKey(config, values.url);
    const key = parsePublicKey(source.publicKeyPem);
    if (!key) return fail(`${source.from} does not hold an Ed25519 public key (PEM)`);
    const result = verifyEvidence(pdf, key);
    const data = {
      file,
      key: { fingerprint: result.key, from: source.from },
      document: result.document,
      record: result.record,
      pdfSignature: result.pdfSignature,
    };
    if (!result.valid) return fail(`${file} is not valid evidence: ${result.failure}`, { valid: false, ...data });
    process.stdout.write(`${JSON.stringify({ success: true, data: { valid: true, ...data } }, null, 2)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    return fail(error instanceof Error ? error.message : String(error));
  }
}

async function keyCommand(config: Config, argv: string[]): Promise<number> {
  const { values } = parse(argv, { url: { type: 'string' } }, 0);
  const key = await servedKey(config, values.url);
  process.stdout.write(key.publicKeyPem.endsWith('\n') ? key.publicKeyPem : `${key.publicKeyPem}\n`);
  process.stderr.write(`fingerprint (SHA-256 of the DER): ${key.fingerprint}\n`);
  return 0;
}

async function evidenceCommand(config: Config, argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb === 'verify') return verifyCommand(config, rest);
  if (verb === 'key') return keyCommand(config, rest);
  throw new UsageError(
    verb === undefined ? 'evidence needs a subcommand: verify or key' : `unknown evidence command "${verb}"`,
  );
}

export const evidence: Command = { help, json: false, run: evidenceCommand };
