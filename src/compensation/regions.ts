// Airports serving the same town, city or region (Art. 8(3)), from the reviewed table in
// same-region.json: a diversion to another airport of the booked destination's group is a delay
// (C-826/19), anywhere else a cancellation. The table is checked when this module is imported, so
// a malformed edit stops the service at start (and every test) instead of giving wrong verdicts.
import regionData from './same-region.json' with { type: 'json' };

export interface RegionGroup {
  /** The IATA metropolitan (city) code where there is one. */
  id: string;
  name: string;
  airports: string[];
  /** `iata-metropolitan-code`: IATA files the airports under one city code; `common-knowledge`: the airports' stated service areas. */
  basis: 'iata-metropolitan-code' | 'common-knowledge';
  source: string;
  note?: string;
}

const BASES = new Set(['iata-metropolitan-code', 'common-knowledge']);

/** The groups of a table, or an Error naming every problem in it. */
export function parseRegionGroups(data: unknown): RegionGroup[] {
  const problems: string[] = [];
  const groups = (data as { groups?: unknown })?.groups;
  if (!Array.isArray(groups)) throw new Error('same-region table: "groups" must be an array');
  const ids = new Set<string>();
  const seen = new Map<string, string>();
  groups.forEach((raw: Partial<RegionGroup>, i) => {
    const at = `group ${i + 1}${typeof raw?.id === 'string' ? ` (${raw.id})` : ''}`;
    if (typeof raw?.id !== 'string' || !/^[A-Z]{3}$/.test(raw.id)) problems.push(`${at}: id must be a 3-letter code`);
    else if (ids.has(raw.id)) problems.push(`${at}: id appears twice`);
    else ids.add(raw.id);
    if (typeof raw?.name !== 'string' || raw.name.trim() === '') problems.push(`${at}: name is required`);
    if (typeof raw?.source !== 'string' || raw.source.trim() === '') problems.push(`${at}: source is required`);
    if (!BASES.has(raw?.basis as string)) problems.push(`${at}: basis must be one of ${[...BASES].join(', ')}`);
    if (!Array.isArray(raw?.airports) || raw.airports.length < 2) {
      problems.push(`${at}: airports must list at least two codes`);
      return;
    }
    for (const code of raw.airports) {
      if (typeof code !== 'string' || !/^[A-Z]{3}$/.test(code))
        problems.push(`${at}: "${String(code)}" is not a 3-letter IATA code`);
      else if (seen.has(code)) problems.push(`${at}: ${code} is already in group ${seen.get(code)}`);
      else seen.set(code, raw.id ?? at);
    }
  });
  if (problems.length > 0) throw new Error(`same-region table: ${problems.join('; ')}`);
  return groups as RegionGroup[];
}

export const REGION_GROUPS: readonly RegionGroup[] = parseRegionGroups(regionData);
const byAirport = new Map(REGION_GROUPS.flatMap((g) => g.airports.map((code) => [code, g] as const)));

/** The group an airport code belongs to, if any. */
export function regionOf(code: string | null | undefined): RegionGroup | undefined {
  return code ? byAirport.get(code.trim().toUpperCase()) : undefined;
}

/**
 * The group two different airports share (a diversion between them is a delay), else undefined.
 * The same code twice is not a diversion at all and has no group.
 */
export function sharedRegion(a: string | null | undefined, b: string | null | undefined): RegionGroup | undefined {
  const ga = regionOf(a);
  return ga && ga === regionOf(b) && a!.trim().toUpperCase() !== b!.trim().toUpperCase() ? ga : undefined;
}
