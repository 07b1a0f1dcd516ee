// Runway headings of the catalogue airports, for the crosswind flag and the runway a report's RVR
// names: OurAirports' runways.csv (public domain), open paved runways only; source and commit in
// runways.json. Airports not in it have no known runways, so no crosswind is computed there.
import data from './runways.json' with { type: 'json' };

export interface Runway {
  /** Both ends' designators, as "09L/27R". */
  ident: string;
  /** Both ends' true headings, degrees. */
  headings: number[];
}

const byIcao = new Map<string, Runway[]>(Object.entries((data as { airports: Record<string, Runway[]> }).airports));

/** The airport's runways by ICAO code; empty when unknown. */
export function runwaysOf(icao: string): Runway[] {
  return byIcao.get(icao) ?? [];
}
