// The compensation assessment: what Regulation (EC) 261/2004 and its UK counterpart (the retained
// Regulation as amended by SI 2019/278) say a passenger of a disrupted flight is owed. Pure
// functions of the route, the operating carrier and the outcome; docs/compensation.md states the
// rules with their sources and assess.test.ts proves them on hand-checked routes.
//
// What schedule data cannot decide is said in the rationale, never guessed: extraordinary
// circumstances (Art. 5(3)), how early a cancellation was announced (Art. 5(1)(c)), and re-routing
// offers that halve the amount (Art. 7(2)).
import { distanceKm, type ReferenceAirport, type ReferenceAirports } from '../airports/index.js';
import { loadCatalogue } from '../airports/index.js';
import carriersData from './carriers.json' with { type: 'json' };
import { regionOf, sharedRegion, type RegionGroup } from './regions.js';
import { claimDeadlines, type ClaimDeadline } from './deadlines.js';

export type Outcome = 'delayed' | 'cancelled' | 'diverted';
/** `short`: up to 1,500 km; `medium`: 1,500–3,500 km, and intra-EU flights beyond; `long`: other flights over 3,500 km. */
export type Band = 'short' | 'medium' | 'long';

export interface RegimeAssessment {
  /** The regulation covers this flight. */
  applies: boolean;
  band: Band | null;
  /** Halved under Art. 7(2) (a long-haul delay of 3 to 4 hours). */
  reduced: boolean;
}
export interface Assessment {
  eu261: RegimeAssessment & { amountEur: number | null };
  uk261: RegimeAssessment & { amountGbp: number | null };
  distanceKm: number;
  rationale: string[];
  /** With a flight date, where a regulation applies: how long a claim may be brought in each connected country. */
  deadlines?: ClaimDeadline[];
}

export interface AssessmentInput {
  origin: string;
  destination: string;
  /** IATA (or ICAO) code of the operating carrier; null when unknown. */
  airline: string | null;
  outcome: Outcome;
  /**
   * Arrival delay at the destination, minutes. For a diversion to an airport serving the same city
   * or region: the delay of the passenger's final arrival at the booked destination (or the agreed
   * nearby airport) after the carrier's transfer.
   */
  arrivalDelayMinutes?: number | null;
  /**
   * Whether `arrivalDelayMinutes` of a diversion is that final arrival (true, the default: what a
   * claims handler tells GET /api/v1/compensation), or only what a record knows before the transfer
   * (false: the landing at the diversion airport, or a board's delay), which the final arrival can
   * only exceed.
   */
  finalArrival?: boolean;
  /** Where a diverted flight landed. */
  divertedTo?: string | null;
  /** The flight date (YYYY-MM-DD): with it, the claim deadlines of the countries connected to the flight. */
  flightDate?: string;
}

/** The EU's 27 Member States. */
const EU27 = new Set('AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE'.split(' '));
/** EU27 plus Iceland, Norway, Switzerland and Liechtenstein, which apply the Regulation (the EEA Agreement, the EU–Swiss air transport agreement). */
const EU = new Set([...EU27, 'IS', 'NO', 'CH', 'LI']);
/** Outermost regions with their own ISO codes are EU territory (TFEU Art. 355(1)). */
const OUTERMOST = new Set(['GP', 'MQ', 'GF', 'RE', 'YT', 'MF']);
const UK = new Set(['GB']);
const EUR = { short: 250, medium: 400, long: 600 } as const;
const GBP = { short: 220, medium: 350, long: 520 } as const;
/** A delay owes compensation from 3 hours late at arrival (Sturgeon); also the lookup's and the boards' threshold. */
export const EU261_DELAY_MINUTES = 180;

interface Carrier {
  name: string;
  icao: string;
  /** The state that licensed the carrier (its operating licence, Reg. 1008/2008), ISO code. */
  licence: string;
}
const carriers = new Map<string, Carrier>();
for (const [iata, carrier] of Object.entries(carriersData as Record<string, Carrier>)) {
  carriers.set(iata, carrier);
  carriers.set(carrier.icao, carrier);
}

/**
 * The code of the carrier operating a flight, which decides coverage of flights into the EU: the
 * callsign's ICAO prefix when the table knows it (EJU: easyJet Europe flying a U2 number), else the
 * first known of `others` (the operating flight's airline, the airline).
 */
export function operatingCarrier(callsign: string | null, ...others: (string | null | undefined)[]): string | null {
  const prefix = callsign?.slice(0, 3) ?? null;
  if (carrierOf(prefix)) return prefix;
  return others.find((code) => code) ?? null;
}

/** The licence state of a carrier by IATA or ICAO code, when the reviewed table knows it. */
export function carrierOf(code: string | null): Carrier | undefined {
  return code ? carriers.get(code.toUpperCase()) : undefined;
}

const inEu = (airport: ReferenceAirport) => EU.has(airport.countryCode) || OUTERMOST.has(airport.countryCode);
const inMemberState = (airport: ReferenceAirport) =>
  EU27.has(airport.countryCode) || OUTERMOST.has(airport.countryCode);
const inUk = (airport: ReferenceAirport) => UK.has(airport.countryCode);

function bandOf(km: number, intraEu: boolean): Band {
  if (km <= 1500) return 'short';
  if (km <= 3500 || intraEu) return 'medium';
  return 'long';
}

/** The catalogue's alternative codes (MLH and EAP for Basel-Mulhouse, KIV for Chișinău). */
const ALIASES = new Map(loadCatalogue().airports.flatMap((a) => a.aliases.map((alias) => [alias, a.iata] as const)));

/** A reference airport by IATA code or catalogue alias. */
export function findAirport(
  airports: ReferenceAirports,
  code: string | null | undefined,
): ReferenceAirport | undefined {
  if (!code) return undefined;
  const upper = code.toUpperCase();
  return airports.find(upper) ?? airports.find(ALIASES.get(upper) ?? '');
}

/** null when either end of the route is not a known airport. */
export function assess(airports: ReferenceAirports, input: AssessmentInput): Assessment | null {
  const from = findAirport(airports, input.origin);
  const to = findAirport(airports, input.destination);
  if (!from || !to) return null;
  const km = Math.round(distanceKm(from, to));
  const carrier = carrierOf(input.airline);
  const communityCarrier = carrier ? EU.has(carrier.licence) : false;
  // UK261 keeps the words but not the agreements: a Community carrier is one licensed by an EU Member
  // State (Art. 2(c) as substituted by SI 2019/278, reg. 8(3)(a)), and flights to the EU it covers are
  // those to a Member State (Art. 3(1)(b)(ii)). Iceland, Norway, Switzerland and Liechtenstein apply
  // Regulation 261/2004 by agreement with the EU; UK law does not make them Member States.
  const ukCommunityCarrier = carrier ? EU27.has(carrier.licence) : false;
  const ukCarrier = carrier ? UK.has(carrier.licence) : false;
  const rationale: string[] = [];
  const place = (a: ReferenceAirport) => `${a.iata} (${a.countryCode})`;

  // Scope: Art. 3(1) of each regulation.
  const euApplies = inEu(from) || (inEu(to) && communityCarrier);
  const ukApplies = inUk(from) || (inUk(to) && (ukCarrier || ukCommunityCarrier)) || (inMemberState(to) && ukCarrier);
  if (inEu(from)) rationale.push(`EU261 covers every departure from ${place(from)}, whatever the carrier.`);
  else if (inEu(to)) {
    rationale.push(
      communityCarrier
        ? `EU261 covers this flight into the EU because ${carrier!.name} is a Community carrier (licensed in ${carrier!.licence}).`
        : `EU261 does not cover a flight into the EU from ${place(from)} on ${carrier ? `${carrier.name} (licensed in ${carrier.licence}), not a Community carrier` : 'a carrier we cannot identify'}.`,
    );
  } else
    rationale.push(
      `EU261 does not cover ${place(from)} → ${place(to)}: neither end is in the EU, Iceland, Norway or Switzerland.`,
    );
  if (inUk(from)) rationale.push(`UK261 covers every departure from ${place(from)}.`);
  else if (ukApplies) {
    rationale.push(
      ukCarrier
        ? `UK261 covers this flight: it arrives in the ${inUk(to) ? 'UK' : 'EU'} on ${carrier!.name}, a UK air carrier (UK261 Art. 3(1)(b)).`
        : `UK261 covers this flight: it arrives in the UK on ${carrier!.name}, a Community carrier licensed in ${carrier!.licence}, an EU Member State (UK261 Art. 2(c), 3(1)(b)(i)).`,
    );
  } else if (inUk(to) && communityCarrier) {
    rationale.push(
      `UK261 does not cover this flight into the UK: ${carrier!.name} is licensed in ${carrier!.licence}, which applies EU261 by agreement with the EU but is not an EU Member State, and UK261 counts as Community carriers only those a Member State licensed (UK261 Art. 2(c), 3(1)(b)(i)).`,
    );
  }

  const intraEu = inEu(from) && inEu(to);
  const band = bandOf(km, intraEu);
  rationale.push(
    `Great-circle distance ${km.toLocaleString('en')} km: band ${band}${intraEu && km > 3500 ? ' (an intra-EU flight over 3,500 km is capped at the medium band)' : ''}.`,
  );

  // What the outcome owes.
  let owed = false;
  let reduced = false;
  switch (input.outcome) {
    case 'cancelled':
      owed = true;
      rationale.push(
        'A cancellation is owed compensation unless the passenger was told 14 days or more ahead (or 7–14 days / under 7 days ahead with a close re-routing, Art. 5(1)(c)); the announcement date is not in flight data.',
      );
      break;
    case 'diverted': {
      const target = findAirport(airports, input.divertedTo);
      const region = diversionRegion(to, target, input);
      if (region) {
        const final = input.finalArrival ?? true;
        rationale.push(
          `Diverted to ${target!.iata}, ${region.kind === 'same' ? `the booked airport itself${input.divertedTo?.toUpperCase() !== to.iata ? ' under another code' : ''}` : `which serves the same city or region as ${to.iata} (${region.group.name})`}: that is a delay, not a cancellation (Art. 8(3), C-826/19 WZ v Austrian), measured on the passenger's final arrival at ${to.iata} (or the agreed nearby airport) after the carrier's transfer.`,
        );
        ({ owed, reduced } = delayRule(
          input.arrivalDelayMinutes ?? null,
          band,
          final,
          to.iata,
          target!.iata,
          rationale,
        ));
        if (owed && from.countryCode === 'CH') rationale.push(SWISS);
      } else {
        owed = true;
        rationale.push(
          target
            ? `Diverted to ${target.iata}, which does not serve ${to.iata}'s city or region: treated as a cancellation (Commission guidelines 2024, C/2024/5687), owed unless the passenger was promptly re-routed to arrive less than 2 hours late (Art. 5(1)(c)(iii)); a re-routing offer may halve it (Art. 7(2)).`
            : `Diverted to an airport not named: treated as a cancellation (Commission guidelines 2024, C/2024/5687), owed unless the passenger was promptly re-routed. Had it landed at an airport serving ${to.iata}'s city or region it would be a delay instead: give divertedTo.`,
        );
      }
      break;
    }
    case 'delayed': {
      ({ owed, reduced } = delayRule(input.arrivalDelayMinutes ?? null, band, true, to.iata, null, rationale));
      if (owed && from.countryCode === 'CH') rationale.push(SWISS);
      break;
    }
  }
  if (owed) {
    rationale.push(
      "Not owed if the carrier proves extraordinary circumstances (Art. 5(3)): weather, air traffic control, security; technical faults and the carrier's own strikes do not count.",
    );
  }
  const amount = (table: Record<Band, number>, applies: boolean) =>
    applies && owed ? (reduced ? table[band] / 2 : table[band]) : null;
  return {
    eu261: {
      applies: euApplies,
      amountEur: amount(EUR, euApplies),
      band: euApplies ? band : null,
      reduced: euApplies && owed && reduced,
    },
    uk261: {
      applies: ukApplies,
      amountGbp: amount(GBP, ukApplies),
      band: ukApplies ? band : null,
      reduced: ukApplies && owed && reduced,
    },
    distanceKm: km,
    rationale,
    ...(input.flightDate && (euApplies || ukApplies)
      ? {
          deadlines: claimDeadlines(input.flightDate, {
            departure: from.countryCode,
            arrival: to.countryCode,
            carrier: carrier?.licence ?? null,
          }),
        }
      : {}),
  };
}

const SWISS =
  'Swiss courts have not followed Sturgeon: compensation for a delay from a Swiss airport is contested there.';

/**
 * Whether a diversion to `target` is a delay: the target serves the same city or region as the
 * booked destination (the reviewed table), or is the destination itself under another code (MLH for
 * BSL). Raw codes are compared too, since findAirport folds catalogue aliases into one airport.
 */
function diversionRegion(
  to: ReferenceAirport,
  target: ReferenceAirport | undefined,
  input: AssessmentInput,
): { kind: 'same'; group: RegionGroup | undefined } | { kind: 'region'; group: RegionGroup } | null {
  if (!target) return null;
  if (target.iata === to.iata) return { kind: 'same', group: regionOf(to.iata) };
  const group = sharedRegion(to.iata, target.iata) ?? sharedRegion(input.destination, input.divertedTo);
  return group ? { kind: 'region', group } : null;
}

/**
 * The delay rule (Sturgeon, Nelson): owed from 3 hours late at the final destination; halved under
 * Art. 7(2) as Sturgeon para. 63 applies it, which only the long band can meet while 3 hours late
 * (a medium flight exactly 3 hours late is not halved: our choice, docs/compensation.md).
 * `final` false: the minutes are what a record knows before the transfer, which the final arrival
 * can only exceed; under 3 hours, or unknown, the amount depends on the final arrival.
 */
function delayRule(
  delay: number | null,
  band: Band,
  final: boolean,
  destination: string,
  divertedTo: string | null,
  rationale: string[],
): { owed: boolean; reduced: boolean } {
  const depends = `The amount depends on the delay of the passenger's final arrival at ${destination} after the transfer: 3 hours or more is owed; ask GET /api/v1/compensation with that delay as arrivalDelayMinutes.`;
  if (delay === null) {
    rationale.push(
      divertedTo && !final
        ? `The record has no arrival time at ${divertedTo} or ${destination}. ${depends}`
        : divertedTo
          ? `Without the final arrival delay at ${destination} nothing can be owed for a delay. ${depends}`
          : 'Without the arrival delay nothing can be owed for a delay.',
    );
    return { owed: false, reduced: false };
  }
  const where =
    divertedTo && !final
      ? `It reached ${divertedTo} ${delay} minutes after the scheduled arrival at ${destination}; the final arrival at ${destination} after the transfer is later still`
      : divertedTo
        ? `The passenger reached ${destination} ${delay} minutes late`
        : `It arrived ${delay} minutes late`;
  if (delay >= EU261_DELAY_MINUTES) {
    const reduced = band === 'long' && delay < 240;
    rationale.push(
      `${where}: 3 hours or more is owed compensation (C-402/07 Sturgeon, C-581/10 Nelson)${reduced ? ', halved because the long band arrived less than 4 hours late (Art. 7(2))' : ''}.${reduced && !final ? ' A final arrival 4 hours or more late is owed the full amount.' : ''}`,
    );
    return { owed: true, reduced };
  }
  rationale.push(
    divertedTo && !final ? `${where}. ${depends}` : `${where}: under 3 hours nothing is owed for a delay.`,
  );
  return { owed: false, reduced: false };
}
