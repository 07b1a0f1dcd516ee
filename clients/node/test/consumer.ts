// A customer's TypeScript, compiled (never run) by test/client-package.test.ts in the empty project
// against the declarations the installed tarball ships: the calls below must type-check, and each
// line after a @ts-expect-error must not (a client typed `any` would let them all through).
import {
  createFlightStatusClient,
  verifyWebhook,
  WebhookVerificationError,
  type FlightStatusClient,
  type Schemas,
  type WebhookEvent,
} from '@flightstatus/client';
import { verifyWebhook as verifyOnly } from '@flightstatus/client/webhooks';

const api: FlightStatusClient = createFlightStatusClient({ baseUrl: 'https://api.example.com', apiKey: 'key' });

export async function lookUp(): Promise<string> {
  const flight = { flightNumber: 'W63101', flightDate: '2026-03-01', origin: 'OTP' };
  const { data, error } = await api.GET('/api/v1/flights/status', { params: { query: flight } });
  if (error) return `${error.code}: ${error.message}`;
  const delay: number | null = data.data.selected?.delayMinutes ?? null;
  const { data: account } = await api.GET('/api/v1/account');
  const me: Schemas['Account'] | undefined = account?.data;
  const { data: airports } = await api.GET('/api/v1/airports');
  const first: Schemas['Airport'] | undefined = airports?.data.airports[0];
  return `${data.data.flightNumber} ${delay ?? 'on time'} (${me?.accountSlug} at ${first?.iata})`;
}

export async function mistakes(): Promise<void> {
  // @ts-expect-error: the flight's query parameter is flightNumber, not flightNo
  await api.GET('/api/v1/flights/status', { params: { query: { flightNo: 'W63101', flightDate: '2026-03-01' } } });
  // @ts-expect-error: flightDate is required
  await api.GET('/api/v1/flights/status', { params: { query: { flightNumber: 'W63101' } } });
  // @ts-expect-error: the airport list takes no query
  await api.GET('/api/v1/airports', { params: { query: { country: 'RO' } } });
  // @ts-expect-error: there is no such path
  await api.GET('/api/v1/flight/status');
  // @ts-expect-error: overlapSeconds is a number of seconds
  await api.POST('/api/v1/webhooks/{id}/rotate', { params: { path: { id: 'wh_1' } }, body: { overlapSeconds: 'day' } });
  // @ts-expect-error: the endpoint's id is required
  await api.POST('/api/v1/webhooks/{id}/test', {});
  const account = await api.GET('/api/v1/account');
  // @ts-expect-error: requestCount is a number
  const count: string | undefined = account.data?.data.requestCount;
  void count;
}

export function receive(raw: Buffer, header: string | undefined, held: readonly string[]): WebhookEvent | null {
  verifyOnly(raw, header, 'whsec_one');
  // @ts-expect-error: a body already parsed is not the raw bytes
  verifyWebhook({ id: 'dlv_1' }, header, held);
  try {
    return verifyWebhook(raw, header, held, { toleranceSeconds: 300 });
  } catch (error) {
    if (error instanceof WebhookVerificationError) return null;
    throw error;
  }
}
