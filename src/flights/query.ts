// The query of GET /api/v1/flights/status (docs/flight-lookup.md), parsed completely: canonical names and
// aliases, trimming, upper-casing, lengths, the strict date shape (a full ISO timestamp is cut to
// its date), airport filters in either case, and flags that accept exactly 1/0/true/false/yes/no.
// QUERY_PARAMETERS is the single description: the parser reads it and the OpenAPI document is
// generated from it.
import { dayProblem, FLIGHT_YEARS, readDay } from '../clock.js';

export interface FlightQuery {
  /** As requested, trimmed and upper-cased (echoed in the response). */
  flightNumber: string;
  /** The designator without spaces, for matching (`W6 3101` → `W63101`). */
  designator: string;
  /** Scheduled departure date, YYYY-MM-DD: in UTC (the specification's), or the departure airport's local date (`dateBasis`). */
  flightDate: string;
  /** What `flightDate` is: `utc` (the default; docs/flight-lookup.md, "The date"), or `local`: the departure airport's local date, as on a boarding pass. */
  dateBasis: DateBasis;
  origin: string | null;
  destination: string | null;
  refresh: boolean;
  screenshot: boolean;
}

export type DateBasis = 'utc' | 'local';
export const DATE_BASES = ['utc', 'local'] as const;

type Raw = string | string[] | undefined;
type Check<T> = { ok: true; value: T } | { ok: false; problem: string };

interface Parameter<T> {
  name: keyof FlightQuery & string;
  aliases: string[];
  required: boolean;
  description: string;
  /** JSON Schema of one value, for documentation. */
  schema: Record<string, unknown>;
  parse(value: string): Check<T>;
}

const FLAG_VALUES = ['1', '0', 'true', 'false', 'yes', 'no'] as const;
const TRUE_VALUES = new Set(['1', 'true', 'yes']);
const FLAG_HINT = 'must be one of 1, 0, true, false, yes, no';

/**
 * A designator, upper-cased: the airline's IATA code (two characters, not both digits) or ICAO code
 * (three letters), an optional space, the number (1 to 4 digits) and an optional operational suffix.
 */
const DESIGNATOR = /^(?:[A-Z][A-Z0-9]|[0-9][A-Z]|[A-Z]{3}) ?[0-9]{1,4}[A-Z]?$/;
/** Whether an upper-cased, trimmed text is a designator (the flight filter of a delivery log too). */
export const isDesignator = (text: string): boolean => DESIGNATOR.test(text);
/**
 * What the request accepts (README.md, "The API": a string of 2 to 12 characters): letters and
 * digits, with at most one space, after the airline's code of 2 or 3 characters, as printed on a
 * boarding pass. A value of that shape that cannot be a designator (`ZZ`, `ZZ9999999999`) is asked
 * and answered "not found" with the reason (lookup.ts); any other character, or a space elsewhere
 * (`hello world`), is a 400 naming the field.
 */
const REQUEST = /^(?:[A-Z0-9]{2,3} [A-Z0-9]+|[A-Z0-9]+)$/;
/** The same, for the OpenAPI document: either case, and the spaces the parser trims. */
const REQUEST_PATTERN = '^\\s*(?:[A-Za-z0-9]{2,3} [A-Za-z0-9]+|[A-Za-z0-9]+)\\s*$';

const ok = <T>(value: T): Check<T> => ({ ok: true, value });
const fail = (problem: string): Check<never> => ({ ok: false, problem });

function flag(name: string): Parameter<boolean>['parse'] {
  return (value) =>
    (FLAG_VALUES as readonly string[]).includes(value)
      ? ok(TRUE_VALUES.has(value))
      : fail(`${name} ${FLAG_HINT} (got ${show(value)})`);
}

function airport(name: string): Parameter<string>['parse'] {
  return (value) => {
    const code = value.trim();
    return /^[A-Za-z]{3}$/.test(code)
      ? ok(code.toUpperCase())
      : fail(`${name} must be a 3-letter IATA airport code (got ${show(value)})`);
  };
}

export const QUERY_PARAMETERS = [
  {
    name: 'flightNumber',
    aliases: ['flight', 'number'],
    required: true,
    description:
      'Flight designator, e.g. `W63101` or `W6 3101`: an airline code of 2 characters (IATA) or 3 letters (ICAO), ' +
      'an optional space, 1 to 4 digits and an optional letter; trimmed and upper-cased. 2 to 12 letters and digits, with a ' +
      'space only after the airline code: a value that cannot be a designator (`ZZ`) is answered with `selected: null` and ' +
      '`rationale` saying why, no provider asked, and costs its credit as a flight not found does',
    schema: { type: 'string', minLength: 2, maxLength: 12, pattern: REQUEST_PATTERN },
    parse(value: string): Check<string> {
      const trimmed = value.trim().toUpperCase();
      if (trimmed.length < 2 || trimmed.length > 12) {
        return fail(`flightNumber must be 2 to 12 characters after trimming (got ${trimmed.length})`);
      }
      if (!REQUEST.test(trimmed)) {
        return fail(
          `flightNumber must be letters and digits, with a space only after the airline code, e.g. W63101 or W6 3101 (got ${show(value)})`,
        );
      }
      return ok(trimmed);
    },
  } satisfies Parameter<string>,
  {
    name: 'flightDate',
    aliases: ['date'],
    required: true,
    description:
      'Scheduled departure date in UTC, `YYYY-MM-DD`. A full ISO 8601 timestamp (`2026-03-12T07:15:00Z`) is accepted and truncated to its date as written',
    schema: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}([Tt].*)?$' },
    parse: parseFlightDate,
  } satisfies Parameter<string>,
  {
    name: 'dateBasis',
    aliases: [],
    required: false,
    description:
      "What `flightDate` is: `utc` (the default), the UTC date of the scheduled departure; or `local`, the departure airport's local date, as a " +
      'boarding pass and a claim form print it. The answer echoes it (`data.dateBasis`); docs/flight-lookup.md, "The date"',
    schema: { type: 'string', enum: [...DATE_BASES] },
    parse: (value: string) => {
      const basis = value.trim().toLowerCase();
      return (DATE_BASES as readonly string[]).includes(basis)
        ? ok(basis as DateBasis)
        : fail(`dateBasis must be utc or local (got ${show(value)})`);
    },
  } satisfies Parameter<DateBasis>,
  {
    name: 'origin',
    aliases: ['originIata', 'from'],
    required: false,
    description:
      'IATA code of the departure airport (either case); picks the right leg of a codeshare or a multi-leg number',
    schema: { type: 'string', pattern: '^[A-Za-z]{3}$' },
    parse: airport('origin'),
  } satisfies Parameter<string>,
  {
    name: 'destination',
    aliases: ['destinationIata', 'dest', 'to'],
    required: false,
    description: 'IATA code of the arrival airport (either case); same purpose as origin',
    schema: { type: 'string', pattern: '^[A-Za-z]{3}$' },
    parse: airport('destination'),
  } satisfies Parameter<string>,
  {
    name: 'refresh',
    aliases: [],
    required: false,
    description: 'Skip the stored record and resolve again from scratch',
    schema: { type: 'string', enum: [...FLAG_VALUES] },
    parse: flag('refresh'),
  } satisfies Parameter<boolean>,
  {
    name: 'screenshot',
    aliases: ['includeScreenshot'],
    required: false,
    description: 'Attach a rendered proof image of the record (base64 PNG); never persisted',
    schema: { type: 'string', enum: [...FLAG_VALUES] },
    parse: flag('screenshot'),
  } satisfies Parameter<boolean>,
] as const;

export type ParseResult = { ok: true; query: FlightQuery } | { ok: false; message: string };

/** Every problem is reported, each naming its field; unknown parameters are ignored. */
export function parseFlightQuery(raw: Record<string, Raw>): ParseResult {
  const problems: string[] = [];
  const values: Record<string, unknown> = {};
  for (const parameter of QUERY_PARAMETERS as readonly Parameter<unknown>[]) {
    const given = collect(raw, parameter, problems);
    if (given === undefined) {
      if (parameter.required) problems.push(`${parameter.name} is required${aliasHint(parameter)}`);
      continue;
    }
    const checked = parameter.parse(given);
    if (checked.ok) values[parameter.name] = checked.value;
    else problems.push(checked.problem);
  }
  if (problems.length > 0) return { ok: false, message: `Invalid query: ${problems.join('; ')}` };
  const flightNumber = values.flightNumber as string;
  return {
    ok: true,
    query: {
      flightNumber,
      designator: flightNumber.replace(/ /g, ''),
      flightDate: values.flightDate as string,
      dateBasis: (values.dateBasis as DateBasis | undefined) ?? 'utc',
      origin: (values.origin as string | undefined) ?? null,
      destination: (values.destination as string | undefined) ?? null,
      refresh: (values.refresh as boolean | undefined) ?? false,
      screenshot: (values.screenshot as boolean | undefined) ?? false,
    },
  };
}

/**
 * The one value of a parameter across its name and aliases. Given twice with the same meaning is
 * fine; given twice with different values is a problem (which one did the caller mean?).
 */
function collect(raw: Record<string, Raw>, parameter: Parameter<unknown>, problems: string[]): string | undefined {
  const found: { key: string; value: string }[] = [];
  for (const key of [parameter.name, ...parameter.aliases]) {
    const value = raw[key];
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) found.push({ key, value: one });
  }
  if (found.length === 0) return undefined;
  const distinct = new Set(found.map((f) => f.value.trim()));
  if (distinct.size > 1) {
    const keys = [...new Set(found.map((f) => f.key))].join(', ');
    problems.push(`${parameter.name} was given more than once with different values (${keys})`);
    return undefined;
  }
  return found[0]!.value;
}

function aliasHint(parameter: Parameter<unknown>): string {
  return parameter.aliases.length > 0 ? ` (aliases: ${parameter.aliases.join(', ')})` : '';
}

const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:[Zz]|[+-](\d{2}):?(\d{2}))?$/;

export function parseFlightDate(value: string): Check<string> {
  const text = value.trim();
  let date = text;
  const timestamp = TIMESTAMP.exec(text);
  if (timestamp) {
    const [, day, hh, mm, ss, oh, om] = timestamp;
    const inRange = (v: string | undefined, max: number) => v === undefined || Number(v) <= max;
    if (!inRange(hh, 23) || !inRange(mm, 59) || !inRange(ss, 59) || !inRange(oh, 23) || !inRange(om, 59)) {
      return fail(`flightDate has an invalid time part (got ${show(value)})`);
    }
    date = day!;
  }
  const day = readDay(date, FLIGHT_YEARS);
  return day.ok ? ok(day.day) : fail(dayProblem('flightDate', value, day.problem, FLIGHT_YEARS));
}

/** A value quoted for an error message, cut short so hostile input cannot flood it. */
function show(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}

/** JSON Schema of the query string for documentation: canonical names and every alias. */
export function querySchema(): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const parameter of QUERY_PARAMETERS as readonly Parameter<unknown>[]) {
    // The canonical name is `required` in the document, so a typed client cannot build a call the
    // service refuses. The service also takes an alias in its place (README.md, "The API"): the aliases are
    // listed, optional, for clients written by hand; a call that gives both must give one value.
    if (parameter.required) required.push(parameter.name);
    const aliases =
      parameter.aliases.length > 0 ? ` Also accepted under ${parameter.aliases.join(', ')} in its place.` : '';
    properties[parameter.name] = { ...parameter.schema, description: `${parameter.description}.${aliases}` };
    for (const alias of parameter.aliases) {
      const instead = parameter.required
        ? `; the service takes it in place of ${parameter.name}, which this description requires`
        : '';
      properties[alias] = {
        ...parameter.schema,
        description: `Alias of ${parameter.name}${instead}. Given with ${parameter.name}, it must have the same value`,
      };
    }
  }
  return { type: 'object', properties, required };
}
