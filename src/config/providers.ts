// Flight data providers: which are asked, in which order, and each real provider's key, address
// and request budget (docs/providers.md).
import { Type } from 'typebox';
import { capability, custom, integer, invalid, text, type Setting } from './setting.js';

export const PROVIDER_NAMES = ['sim', 'aerodatabox', 'aeroapi', 'aviationstack', 'opensky'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

export interface UpstreamProviderConfig {
  /** Empty when the provider is not listed in FLIGHTSTATUS_PROVIDERS. */
  key: string;
  /** Base URL without a trailing slash. */
  url: string;
  requestsPerMinute: number;
}

export interface UpstreamConfig {
  aerodatabox: UpstreamProviderConfig;
  aeroapi: UpstreamProviderConfig;
  aviationstack: UpstreamProviderConfig;
  opensky: OpenSkyConfig;
}

export interface OpenSkyConfig {
  clientId: string;
  clientSecret: string;
  url: string;
  /** The OAuth2 token endpoint. */
  authUrl: string;
  requestsPerMinute: number;
}

/** The names in FLIGHTSTATUS_PROVIDERS, as written (lower-cased), known or not. */
function listed(text: string): string[] {
  return text
    .split(',')
    .map((p) => p.trim().toLowerCase())
    .filter((p) => p !== '');
}

/**
 * A provider's base URL: operator configuration, so loopback and http are accepted (tests and a
 * local mirror point at a fixture server); no credentials or fragment in it.
 */
function parseProviderUrl(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password || url.hash || url.search)
    return null;
  return url.href.replace(/\/+$/, '');
}

export function providerUrl(defaultUrl: string, doc: string): Setting<string> {
  return custom({
    default: defaultUrl,
    schema: Type.String({ format: 'uri' }),
    parse: (value, name) => {
      const url = parseProviderUrl(value);
      // A URL carrying credentials is refused without being repeated: the message reaches logs.
      const shown = /\/\/[^/@]*@/.test(value) ? 'a URL with credentials' : `"${value}"`;
      return (
        url ??
        invalid(`${name} must be an http:// or https:// URL without credentials, query or fragment (got ${shown})`)
      );
    },
    doc,
  });
}

function budget(defaultBudget: string, doc: string): Setting<number> {
  return integer({ default: defaultBudget, min: 1, max: 100_000, unit: 'an integer', doc });
}

/** The credentials each provider needs when FLIGHTSTATUS_PROVIDERS lists it. */
const REQUIRED = {
  aerodatabox: ['FLIGHTSTATUS_AERODATABOX_KEY'],
  aeroapi: ['FLIGHTSTATUS_AEROAPI_KEY'],
  aviationstack: ['FLIGHTSTATUS_AVIATIONSTACK_KEY'],
  opensky: ['FLIGHTSTATUS_OPENSKY_CLIENT_ID', 'FLIGHTSTATUS_OPENSKY_CLIENT_SECRET'],
} as const;

export const providers = capability({
  title: 'Flight data providers (docs/providers.md)',
  settings: {
    FLIGHTSTATUS_PROVIDERS: custom({
      default: 'sim',
      schema: Type.Array(Type.Union(PROVIDER_NAMES.map((name) => Type.Literal(name))), {
        minItems: 1,
        uniqueItems: true,
      }),
      parse: (value) => {
        const names = listed(value);
        const problems = names
          .filter((name) => !(PROVIDER_NAMES as readonly string[]).includes(name))
          .map(
            (name) =>
              `FLIGHTSTATUS_PROVIDERS names an unknown provider "${name}" (known: ${PROVIDER_NAMES.join(', ')})`,
          );
        if (new Set(names).size !== names.length) problems.push('FLIGHTSTATUS_PROVIDERS names a provider twice');
        if (names.length === 0) problems.push('FLIGHTSTATUS_PROVIDERS must name at least one provider, e.g. sim');
        return problems.length > 0 ? invalid(...problems) : (names as ProviderName[]);
      },
      doc: 'flight data providers in the order asked: `sim` (the simulated world), `aerodatabox`, `aeroapi`, `aviationstack`, and `opensky` to corroborate take-off and landing ([docs/providers.md](docs/providers.md))',
      comment:
        'Flight data providers, asked in this order (comma-separated). Known: sim (the simulated world, no ' +
        'key, no network), aerodatabox, aeroapi and aviationstack (real flights; each needs its key below), ' +
        'and opensky (corroborates take-off and landing times only). Real data in one step:\n' +
        '  FLIGHTSTATUS_PROVIDERS=aerodatabox FLIGHTSTATUS_AERODATABOX_KEY=<your RapidAPI key>\n' +
        'docs/providers.md says what each provider gives and costs.',
    }),
    FLIGHTSTATUS_AERODATABOX_KEY: text({
      default: '',
      doc: "AeroDataBox's RapidAPI key (required when listed; never logged)",
      comment:
        'AeroDataBox through RapidAPI: the key (sent as X-RapidAPI-Key, never logged), the base URL (the ' +
        'X-RapidAPI-Host header is its host; http://127.0.0.1:PORT is accepted for a local mirror or fixture) ' +
        "and the most requests a minute the service may send (RapidAPI's Basic plan: about 1 a second).",
    }),
    FLIGHTSTATUS_AERODATABOX_URL: providerUrl('https://aerodatabox.p.rapidapi.com', "AeroDataBox's base URL"),
    FLIGHTSTATUS_AERODATABOX_REQUESTS_PER_MINUTE: budget('30', 'the most requests a minute sent to AeroDataBox'),
    FLIGHTSTATUS_AEROAPI_KEY: text({
      default: '',
      doc: "FlightAware AeroAPI's key (required when listed; never logged)",
      comment:
        'FlightAware AeroAPI v4: the key (sent as x-apikey, never logged), the base URL and the most ' +
        'requests (result sets) a minute (the Personal tier allows 10).',
    }),
    FLIGHTSTATUS_AEROAPI_URL: providerUrl('https://aeroapi.flightaware.com/aeroapi', "AeroAPI's base URL"),
    FLIGHTSTATUS_AEROAPI_REQUESTS_PER_MINUTE: budget('10', 'the most requests (result sets) a minute sent to AeroAPI'),
    FLIGHTSTATUS_AVIATIONSTACK_KEY: text({
      default: '',
      doc: "aviationstack's key (required when listed; never logged)",
      comment:
        'aviationstack (apilayer): the key (the access_key query parameter: in no log line or message), the ' +
        'base URL and the most requests a minute (its plans are monthly quotas; historical flight dates need ' +
        'the Basic plan or higher).',
    }),
    FLIGHTSTATUS_AVIATIONSTACK_URL: providerUrl('https://api.aviationstack.com/v1', "aviationstack's base URL"),
    FLIGHTSTATUS_AVIATIONSTACK_REQUESTS_PER_MINUTE: budget('10', 'the most requests a minute sent to aviationstack'),
    FLIGHTSTATUS_OPENSKY_CLIENT_ID: text({
      default: '',
      doc: "OpenSky's OAuth2 client id (required when listed)",
      comment:
        'OpenSky Network: corroborates the take-off and landing of a record the other providers found, by ' +
        "the aircraft's ICAO address (list it last, e.g. aerodatabox,opensky). OAuth2 client credentials (the " +
        "secret is never logged), the API and token URLs, and the most requests a minute (a user's 4,000 " +
        'daily credits buy about 1,000 flight calls).',
    }),
    FLIGHTSTATUS_OPENSKY_CLIENT_SECRET: text({
      default: '',
      doc: "OpenSky's OAuth2 client secret (required when listed; never logged)",
    }),
    FLIGHTSTATUS_OPENSKY_URL: providerUrl('https://opensky-network.org/api', "OpenSky's API URL"),
    FLIGHTSTATUS_OPENSKY_AUTH_URL: providerUrl(
      'https://auth.opensky-network.org/auth/realms/opensky-network/protocol/openid-connect/token',
      "OpenSky's OAuth2 token URL",
    ),
    FLIGHTSTATUS_OPENSKY_REQUESTS_PER_MINUTE: budget('5', 'the most requests a minute sent to OpenSky'),
    FLIGHTSTATUS_PROVIDER_TIMEOUT_MS: integer({
      default: '8000',
      min: 10,
      max: 60_000,
      unit: 'milliseconds',
      doc: 'how long one provider call may take before it counts as an error',
      comment:
        'How long one provider call may take (milliseconds, 10 to 60000) before it counts as an error; ' +
        'when every provider errors the lookup answers 500 (safe to retry).',
    }),
  },
  check({ values, text: given, problem }) {
    // Checked against the list as written, so a typo elsewhere in it does not hide a missing key.
    const names = values.FLIGHTSTATUS_PROVIDERS ?? listed(given.FLIGHTSTATUS_PROVIDERS);
    for (const [name, variables] of Object.entries(REQUIRED)) {
      if (!names.includes(name as ProviderName)) continue;
      for (const variable of variables) {
        if (given[variable] === '') problem(`${variable} must be set: FLIGHTSTATUS_PROVIDERS lists ${name}`);
      }
    }
  },
  build: (v) => ({
    providers: v.FLIGHTSTATUS_PROVIDERS,
    upstream: {
      aerodatabox: {
        key: v.FLIGHTSTATUS_AERODATABOX_KEY,
        url: v.FLIGHTSTATUS_AERODATABOX_URL,
        requestsPerMinute: v.FLIGHTSTATUS_AERODATABOX_REQUESTS_PER_MINUTE,
      },
      aeroapi: {
        key: v.FLIGHTSTATUS_AEROAPI_KEY,
        url: v.FLIGHTSTATUS_AEROAPI_URL,
        requestsPerMinute: v.FLIGHTSTATUS_AEROAPI_REQUESTS_PER_MINUTE,
      },
      aviationstack: {
        key: v.FLIGHTSTATUS_AVIATIONSTACK_KEY,
        url: v.FLIGHTSTATUS_AVIATIONSTACK_URL,
        requestsPerMinute: v.FLIGHTSTATUS_AVIATIONSTACK_REQUESTS_PER_MINUTE,
      },
      opensky: {
        clientId: v.FLIGHTSTATUS_OPENSKY_CLIENT_ID,
        clientSecret: v.FLIGHTSTATUS_OPENSKY_CLIENT_SECRET,
        url: v.FLIGHTSTATUS_OPENSKY_URL,
        authUrl: v.FLIGHTSTATUS_OPENSKY_AUTH_URL,
        requestsPerMinute: v.FLIGHTSTATUS_OPENSKY_REQUESTS_PER_MINUTE,
      },
    } satisfies UpstreamConfig,
    providerTimeoutMs: v.FLIGHTSTATUS_PROVIDER_TIMEOUT_MS,
  }),
});
