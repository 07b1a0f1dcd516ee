// The running service's public API as the commands that act for an account call it (batch, watch):
// its address, the account's key, the envelope's data or the service's message as the failure.
import type { Config } from '../config.js';
import { UsageError } from './args.js';
import { serviceBase } from './running-service.js';

export interface Client {
  base: string;
  call(
    method: string,
    path: string,
    body?: { type: string; bytes: Uint8Array },
    accept?: string,
  ): Promise<{ status: number; text: string }>;
}

export function client(config: Config, url: string | undefined, key: string): Client {
  const base = serviceBase(config, url);
  if (!base) throw new UsageError('PORT is 0: pass --url with the service address');
  return {
    base,
    async call(method, path, body, accept = 'application/json') {
      let response: Response;
      try {
        response = await fetch(`${base}${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, accept, ...(body ? { 'content-type': body.type } : {}) },
          body: body?.bytes,
          signal: AbortSignal.timeout(5 * 60_000),
        });
      } catch (error) {
        throw new Error(
          `no service answered at ${base} (${(error as Error).cause ?? (error as Error).message}); start it with npm start, or pass --url`,
          { cause: error },
        );
      }
      return { status: response.status, text: await response.text() };
    },
  };
}

/** The envelope's data, or the service's message as the command's failure. */
export function dataOf<T = unknown>(answer: { status: number; text: string }): T {
  let body: { success?: boolean; data?: unknown; message?: string };
  try {
    body = JSON.parse(answer.text) as typeof body;
  } catch {
    throw new Error(`the service answered ${answer.status} without JSON; is it the Flight Status Service?`);
  }
  if (!body.success) throw new Error(body.message ?? `HTTP ${answer.status}`);
  return body.data as T;
}

export const printJson = (data: unknown) =>
  process.stdout.write(`${JSON.stringify({ success: true, data }, null, 2)}\n`);
