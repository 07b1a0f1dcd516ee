// Airports the operator adds to the catalogue (docs/airports.md, "Adding airports"), beyond the
// specification's 52: any reference airport (large or medium with scheduled service), its facts the
// reference's, with the operator's city or name where travellers say it otherwise. An addition is
// listed by GET /api/v1/airports and may be selected by endpoints created or changed after it; it
// never widens an existing subscription (docs/airports.md: endpoints keep the airports they list). Its boards
// are polled once an endpoint selects it. Every process holds the catalogue in memory and reads the
// additions again every CATALOGUE_REFRESH_MS, and at once when a code it does not know is asked for.
import type { Clock } from '../clock.js';
import { iso } from '../clock.js';
import { countryName } from '../config.js';
import type { Database } from '../db/index.js';
import type { Result } from '../result.js';
import type { Airport, AirportCatalogue } from './catalogue.js';
import type { ReferenceAirports } from './reference.js';

/** How often a process reads the operator's additions again (another process may have made one). */
export const CATALOGUE_REFRESH_MS = 30_000;
const NAME_MAX = 100;

export interface AddAirport {
  iata: string;
  /** The name travellers know it by, if not the reference's. */
  name?: string;
  /** The city it serves, if not the reference's municipality (Frankfurt, not Frankfurt am Main). */
  city?: string;
}

/** An airport of the catalogue as the operator sees it: where it comes from, and when it was added. */
export type CatalogueEntry = Airport & { source: 'specification' | 'operator'; addedAt: string | null };

export class AirportAdditions {
  private addedAt = new Map<string, number>();
  readonly catalogue: AirportCatalogue;

  constructor(
    private readonly o: {
      db: Database;
      clock: Clock;
      catalogue: AirportCatalogue;
      reference: ReferenceAirports;
      /** How many webhook endpoints select an airport (an airport in use is not removed). */
      selectedBy: (iata: string) => Promise<number>;
    },
  ) {
    this.catalogue = o.catalogue;
    o.catalogue.rereadWith(() => this.refresh());
  }

  /** Reads the additions again and hands them to the catalogue. */
  async refresh(): Promise<void> {
    const rows = await this.o.db.kysely.selectFrom('airport_additions').selectAll().orderBy('iata').execute();
    const airports: Airport[] = [];
    const addedAt = new Map<string, number>();
    for (const row of rows) {
      const airport = this.airportOf(row.iata, row);
      if (!airport) continue; // a code the reference no longer holds is skipped, not guessed
      airports.push(airport);
      addedAt.set(row.iata, Number(row.added_at));
    }
    this.o.catalogue.setAdded(airports);
    this.addedAt = addedAt;
  }

  /** The whole catalogue, each airport marked with where it comes from. */
  async list(): Promise<CatalogueEntry[]> {
    await this.refresh();
    return this.o.catalogue.airports.map((a) => this.entry(a));
  }

  async add(input: AddAirport): Promise<Result<CatalogueEntry>> {
    const iata = input.iata.trim().toUpperCase();
    if (!/^[A-Z]{3}$/.test(iata))
      return invalid(`iata must be 3 letters (got ${JSON.stringify(input.iata.slice(0, 12))})`);
    for (const field of ['name', 'city'] as const) {
      const value = input[field];
      if (value !== undefined && (value.trim() === '' || value.length > NAME_MAX || /[\p{Cc}]/u.test(value)))
        return invalid(`${field} must be 1–${NAME_MAX} characters without control characters`);
    }
    await this.refresh();
    const known = this.o.catalogue.find(iata);
    if (known)
      return {
        kind: 'conflict',
        message:
          known.iata === iata
            ? `${iata} is already in the catalogue`
            : `${iata} is already in the catalogue, as an alias of ${known.iata}`,
      };
    if (!this.o.reference.find(iata))
      return invalid(
        `${iata} is not a reference airport (the catalogue takes large and medium airports with scheduled service: docs/airports.md)`,
      );
    const inserted = await this.o.db.kysely
      .insertInto('airport_additions')
      .values({
        iata,
        name: input.name?.trim() ?? null,
        city: input.city?.trim() ?? null,
        added_at: this.o.clock.now(),
      })
      .onConflict((c) => c.column('iata').doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0)
      return { kind: 'conflict', message: `${iata} is already in the catalogue` };
    await this.refresh();
    return { kind: 'ok', value: this.entry(this.o.catalogue.find(iata)!) };
  }

  /** Removes an airport the operator added, while no endpoint selects it; the specification's stay. */
  async remove(code: string): Promise<Result<{ removed: string }>> {
    const iata = code.trim().toUpperCase();
    if (this.o.catalogue.isBuiltIn(iata))
      return {
        kind: 'conflict',
        message: `${iata} is one of the specification's 52 airports and stays in the catalogue`,
      };
    const selecting = await this.o.selectedBy(iata);
    if (selecting > 0)
      return {
        kind: 'conflict',
        message: `${iata} is selected by ${selecting} webhook endpoint${selecting === 1 ? '' : 's'}; it can be removed once none selects it`,
      };
    const deleted = await this.o.db.kysely.deleteFrom('airport_additions').where('iata', '=', iata).executeTakeFirst();
    await this.refresh();
    if (Number(deleted.numDeletedRows) === 0)
      return { kind: 'not_found', message: `${iata.slice(0, 12)} is not an airport the operator added` };
    return { kind: 'ok', value: { removed: iata } };
  }

  private airportOf(iata: string, row: { name: string | null; city: string | null }): Airport | undefined {
    const ref = this.o.reference.find(iata);
    if (!ref) return undefined;
    return {
      iata,
      icao: ref.icao,
      name: row.name ?? ref.name,
      city: row.city ?? ref.city,
      country: countryName(ref.countryCode) ?? ref.countryCode,
      countryCode: ref.countryCode,
      timezone: ref.timezone,
      latitude: ref.latitude,
      longitude: ref.longitude,
      boards: ['departures', 'arrivals'],
      aliases: [],
    };
  }

  private entry(airport: Airport): CatalogueEntry {
    const at = this.addedAt.get(airport.iata);
    return {
      ...airport,
      source: at === undefined ? 'specification' : 'operator',
      addedAt: at === undefined ? null : iso(at),
    };
  }
}

const invalid = (message: string): Result<never> => ({ kind: 'invalid', message });
