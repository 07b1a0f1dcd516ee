// What a delivery sends (docs/webhooks.md, "The request"): the body, serialised once per delivery and kept for its
// retries, and the six X-Flight-* headers with the signature over the exact bytes.
import type { AirportCatalogue } from '../airports/index.js';
import { iso, type Clock } from '../clock.js';
import type { BoardEventsTable, EndpointsTable } from '../db/index.js';
import type { WatchNamed } from './fanout.js';
import type { SecretBox } from './secrets.js';
import type { Attempt } from './sender.js';
import { signatureHeader } from './signature.js';

export const USER_AGENT = 'FlightStatus-Webhooks/1';

export interface EndpointSnapshot {
  id: string;
  name: string;
  airports: string[];
}

/** The airport object of 6.3; `null` fields never occur for catalogue airports. */
function airportObject(catalogue: AirportCatalogue, iata: string) {
  const airport = catalogue.find(iata);
  return airport
    ? {
        iata: airport.iata,
        name: airport.name,
        city: airport.city,
        country: airport.country,
        timezone: airport.timezone,
      }
    : { iata, name: null, city: null, country: null, timezone: null };
}

/**
 * The body of one delivery. The event's `data` is inserted as stored (it was serialised once when
 * the board change was observed), so building a body costs a few small JSON.stringify calls.
 * `watches`: the endpoint's watches of the event's flight (docs/watches.md, "Which watch"), named
 * beside `webhook` (the event's `data` is the same for every subscriber); absent when it has none.
 */
export function deliveryBody(
  catalogue: AirportCatalogue,
  deliveryId: string,
  event: Pick<BoardEventsTable, 'id' | 'type' | 'airport' | 'created_at' | 'data'>,
  endpoint: EndpointSnapshot,
  watches?: readonly WatchNamed[],
): string {
  return (
    `{"id":${JSON.stringify(deliveryId)},"event":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)},` +
    `"createdAt":${JSON.stringify(iso(Number(event.created_at)))},` +
    `"webhook":${JSON.stringify({ id: endpoint.id, name: endpoint.name, airports: endpoint.airports })},` +
    (watches && watches.length > 0 ? `"watches":${JSON.stringify(watches)},` : '') +
    `"airport":${JSON.stringify(airportObject(catalogue, event.airport))},"data":${event.data}}`
  );
}

/**
 * One attempt to `endpoint`, signed now: the secret opened from its stored form, the timestamp taken
 * from real time (receivers check it against their own clocks, docs/webhooks.md).
 */
export function signedAttempt(
  endpoint: Pick<EndpointsTable, 'id' | 'url' | 'secret' | 'previous_secret' | 'previous_secret_until'>,
  secrets: SecretBox,
  wallClock: Clock,
  body: string,
  ids: { eventId: string; eventType: string; deliveryId: string; attempt: number },
  /** The service clock's now: a rotated secret signs too until its overlap ends. */
  now: number,
): Attempt {
  const previous =
    endpoint.previous_secret && endpoint.previous_secret_until != null && Number(endpoint.previous_secret_until) > now
      ? [secrets.open(endpoint.id, endpoint.previous_secret)]
      : [];
  const headers = deliveryHeaders({
    ...ids,
    secrets: [secrets.open(endpoint.id, endpoint.secret), ...previous],
    unixSeconds: Math.floor(wallClock.now() / 1000),
    body,
    endpointId: endpoint.id,
  });
  return { url: endpoint.url, body, headers };
}

/** The request headers of one attempt. */
function deliveryHeaders(input: {
  secrets: string[];
  unixSeconds: number;
  body: string;
  eventId: string;
  eventType: string;
  deliveryId: string;
  endpointId: string;
  attempt: number;
}): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'x-flight-signature': signatureHeader(input.secrets, input.unixSeconds, input.body),
    'x-flight-event': input.eventId,
    'x-flight-event-type': input.eventType,
    'x-flight-delivery': input.deliveryId,
    'x-flight-webhook': input.endpointId,
    'x-flight-attempt': String(input.attempt),
  };
}
