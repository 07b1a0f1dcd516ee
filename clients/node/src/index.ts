// @flightstatus/client: the Flight Status Service's API for Node, typed from the service's OpenAPI
// document, and the receiver helper that verifies webhook deliveries.
//
//   const api = createFlightStatusClient({ baseUrl: 'https://api.example.com', apiKey: process.env.FLIGHTSTATUS_KEY });
//   const { data, error } = await api.GET('/api/v1/flights/status', {
//     params: { query: { flightNumber: 'W63101', flightDate: '2026-03-01' } },
//   });
//
// The client is openapi-fetch's over the generated `paths` (src/generated/openapi.ts, written by the
// service's scripts/client-types.mjs): paths, parameters, bodies and answers are checked by the
// compiler, and each call answers `{ data }` on a 2xx or `{ error }` (the service's error envelope)
// otherwise, with the Response beside them.
import createClient, { mergeHeaders, type Client, type ClientOptions } from 'openapi-fetch';
import type { components, operations, paths } from './generated/openapi.js';

export type { components, operations, paths };

/** The API's named schemas: `Schemas['Account']`, `Schemas['FlightStatus']`, `Schemas['Webhook']`, … */
export type Schemas = components['schemas'];

/** The typed client: `GET`, `POST`, `PATCH`, `DELETE` over the API's paths, and `use` for middleware. */
export type FlightStatusClient = Client<paths>;

export interface FlightStatusClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** Where the service answers, without the API's path: `https://api.example.com`. */
  baseUrl: string;
  /** An API key of the account, sent on every request as `Authorization: Bearer <key>`. */
  apiKey: string;
}

/** A typed client of the API that sends `apiKey` with every request. */
export function createFlightStatusClient(options: FlightStatusClientOptions): FlightStatusClient {
  const { baseUrl, apiKey, headers, ...rest } = options;
  if (typeof baseUrl !== 'string' || !/^https?:\/\//.test(baseUrl)) {
    throw new TypeError(`baseUrl must be the service's http(s) address, e.g. https://api.example.com (got ${baseUrl})`);
  }
  if (typeof apiKey !== 'string' || apiKey.trim() === '') {
    throw new TypeError('apiKey must be an API key of the account (it is sent as Authorization: Bearer <key>)');
  }
  return createClient<paths>({
    ...rest,
    baseUrl,
    headers: mergeHeaders(headers, { Authorization: `Bearer ${apiKey}` }),
  });
}

// The receiver helper, also importable on its own (and without openapi-fetch) as `@flightstatus/client/webhooks`.
export {
  DEFAULT_TOLERANCE_SECONDS,
  verifyWebhook,
  WebhookVerificationError,
  type VerifyOptions,
  type WebhookEvent,
} from './verify.js';
