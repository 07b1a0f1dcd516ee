// The built service as a real process (node dist/main.js), as an operator runs it.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/** A fresh working directory, so no developer's ./.env or ./data is picked up. */
export function scratchDir(): string {
  return mkdtempSync(join(tmpdir(), 'flightstatus-proc-'));
}

export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  /** Everything the process wrote so far. */
  output(): { stdout: string; stderr: string };
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * A service on PostgreSQL needs FLIGHTSTATUS_WEBHOOK_SECRET_KEY; tests that do not set it get a fixed
 * test key (pass it as '' to start without one).
 */
function withTestSecretKey(env: Record<string, string>): Record<string, string> {
  if (!/^postgres/.test(env.DATABASE_URL ?? '') || env.FLIGHTSTATUS_WEBHOOK_SECRET_KEY !== undefined) return env;
  return { ...env, FLIGHTSTATUS_WEBHOOK_SECRET_KEY: '5e'.repeat(32) };
}

export async function startService(env: Record<string, string>, cwd = scratchDir()): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [MAIN, 'serve'], {
    cwd,
    env: { ...cleanEnv(), PORT: '0', LOG_LEVEL: 'info', ...withTestSecretKey(env) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk));
    // The start-up banner (on stderr, whatever the log level) names the address.
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk;
      const match = /is listening on (http:\/\/\S+)/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    void exited.then((code) =>
      reject(new Error(`service exited with ${code} before listening:\n${stdout}\n${stderr}`)),
    );
  });
  return {
    url,
    child,
    output: () => ({ stdout, stderr }),
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Runs a command of the CLI to completion (killed after `timeoutMs` when given: a command that must not hang). */
export function runCli(
  args: string[],
  env: Record<string, string>,
  cwd = scratchDir(),
  timeoutMs?: number,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], {
      cwd,
      env: { ...cleanEnv(), ...withTestSecretKey(env) },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: timeoutMs,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    // 'close', not 'exit': the process can exit before its output is read off the pipes (under load, a
    // help text came back empty).
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The parent's environment minus the service's own settings, so a developer's .env or shell cannot leak in. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    if (/^(PORT|HOST|DATABASE_URL|LOG_LEVEL|FLIGHTSTATUS_.*)$/.test(name)) continue;
    env[name] = value;
  }
  return env;
}

/** One request to a service process with a bearer token (a key or the admin token); a JSON body is parsed, any other kept as text. */
export async function callService(
  service: ServiceProcess,
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text.startsWith('{') ? (JSON.parse(text) as any) : text };
}
