// What an endpoint's fields may hold, checked before any is written: a name, a target URL that passes
// the SSRF check (targets.ts), airports of the catalogue and the account events it receives.
import type { AirportCatalogue } from '../airports/index.js';
import type { Result } from '../result.js';
import { nameProblem } from '../names.js';
import { checkTarget, systemResolver, type Resolver, type TargetPolicy } from './targets.js';
import { ACCOUNT_EVENT_TYPES } from './account-events.js';
import { invalid } from './views.js';

export const MAX_NAME_LENGTH = 100;

export interface EndpointInput {
  name?: string;
  url?: string;
  airports?: string[];
  /** Account events it also receives (account-events.ts). */
  events?: string[];
}

/**
 * Catalogue codes, aliases mapped to their primary code (KIV → RMO), duplicates dropped. None is
 * allowed: such an endpoint receives its watches' flights (docs/watches.md) and its account events.
 */
function normaliseAirports(catalogue: AirportCatalogue, codes: readonly string[]): Result<string[]> {
  const out: string[] = [];
  const unknown: string[] = [];
  for (const code of codes) {
    const airport = catalogue.find(code);
    if (!airport) unknown.push(JSON.stringify(code.slice(0, 20)));
    else if (!out.includes(airport.iata)) out.push(airport.iata);
  }
  if (unknown.length > 0) {
    return invalid(
      `airports: ${unknown.join(', ')} ${unknown.length === 1 ? 'is not a catalogue airport' : 'are not catalogue airports'} (GET /api/v1/airports lists the ${catalogue.airports.length} that are)`,
    );
  }
  return { kind: 'ok', value: out };
}

/** The fields given, each checked and normalised; a field left out stays out. */
export async function checkFields(
  o: { catalogue: AirportCatalogue; policy: TargetPolicy; resolve?: Resolver },
  input: EndpointInput,
): Promise<Result<{ name?: string; url?: string; airports?: string[]; events?: string[] }>> {
  const out: { name?: string; url?: string; airports?: string[]; events?: string[] } = {};
  if (input.name !== undefined) {
    const name = input.name.trim();
    const nameIssue = nameProblem('name', name, { min: 1, max: MAX_NAME_LENGTH });
    if (nameIssue) return invalid(nameIssue);
    out.name = name;
  }
  if (input.url !== undefined) {
    const target = await checkTarget(input.url.trim(), o.policy, o.resolve ?? systemResolver);
    if (!target.ok) return invalid(target.message);
    out.url = target.url.href;
  }
  if (input.airports !== undefined) {
    await o.catalogue.knowAll(input.airports);
    const airports = normaliseAirports(o.catalogue, input.airports);
    if (airports.kind !== 'ok') return airports;
    out.airports = airports.value;
  }
  if (input.events !== undefined) {
    const unknown = input.events.filter((e) => !(ACCOUNT_EVENT_TYPES as readonly string[]).includes(e));
    if (unknown.length > 0)
      return invalid(
        `events: ${JSON.stringify(unknown[0]!.slice(0, 40))} is not an account event (${ACCOUNT_EVENT_TYPES.join(', ')})`,
      );
    out.events = [...new Set(input.events)];
  }
  return { kind: 'ok', value: out };
}
