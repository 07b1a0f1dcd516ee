// GET /api/v1/compensation: the EU261 / UK261 assessment of a route and an outcome, for claims
// handlers outside the event stream. Requires a key, takes no credit.
import { Type } from 'typebox';
import type { ReferenceAirports } from '../airports/index.js';
import { dayProblem, FLIGHT_YEARS, readDay } from '../clock.js';
import { ApiError } from '../http/errors.js';
import type { HttpServer } from '../http/server.js';
import { Envelope, errors, withCreditHeaders } from '../http/schemas.js';
import { assess, findAirport, type AssessmentInput, type Outcome } from './assess.js';
import { AssessmentSchema } from './schema.js';

const OUTCOMES: readonly Outcome[] = ['delayed', 'cancelled', 'diverted'];
const PARAMETERS = ['origin', 'destination', 'airline', 'outcome', 'arrivalDelayMinutes', 'divertedTo', 'flightDate'];

type Raw = Record<string, string | string[] | undefined>;

/** The query, checked field by field with messages that name the field and the value. */
export function parseCompensationQuery(
  raw: Raw,
): { ok: true; input: AssessmentInput } | { ok: false; message: string } {
  const problems: string[] = [];
  const one = (name: string): string | undefined => {
    const value = raw[name];
    if (Array.isArray(value)) {
      problems.push(`${name} is given ${value.length} times; give it once`);
      return undefined;
    }
    return value?.trim();
  };
  const unknown = Object.keys(raw).filter((k) => !PARAMETERS.includes(k));
  if (unknown.length > 0)
    problems.push(
      `unknown parameter ${unknown.map((k) => `"${k.slice(0, 40)}"`).join(', ')} (use ${PARAMETERS.join(', ')})`,
    );
  const airport = (name: string, required: boolean): string | null => {
    const value = one(name);
    if (value === undefined || value === '') {
      if (required) problems.push(`${name} is required (a 3-letter IATA airport code)`);
      return null;
    }
    if (!/^[A-Za-z]{3}$/.test(value))
      problems.push(`${name} must be a 3-letter IATA airport code (got "${value.slice(0, 40)}")`);
    return value.toUpperCase();
  };
  const origin = airport('origin', true);
  const destination = airport('destination', true);
  const divertedTo = airport('divertedTo', false);
  const airline = one('airline');
  if (airline === undefined || airline === '')
    problems.push("airline is required (the operating carrier's IATA code, e.g. W6)");
  else if (!/^[A-Za-z0-9]{2,3}$/.test(airline))
    problems.push(`airline must be an IATA (2) or ICAO (3) airline code (got "${airline.slice(0, 40)}")`);
  const outcome = one('outcome');
  if (!outcome) problems.push(`outcome is required (${OUTCOMES.join(', ')})`);
  else if (!OUTCOMES.includes(outcome as Outcome))
    problems.push(`outcome must be one of ${OUTCOMES.join(', ')} (got "${outcome.slice(0, 40)}")`);
  const delayText = one('arrivalDelayMinutes');
  let arrivalDelayMinutes: number | null = null;
  if (delayText !== undefined && delayText !== '') {
    if (!/^-?\d{1,5}$/.test(delayText))
      problems.push(`arrivalDelayMinutes must be a whole number of minutes (got "${delayText.slice(0, 40)}")`);
    else arrivalDelayMinutes = Number(delayText);
  }
  const flightDate = one('flightDate');
  if (flightDate !== undefined && flightDate !== '') {
    // A flight date as the status endpoint reads one (clock.ts): 2026-13-01 is named, never a RangeError.
    const day = readDay(flightDate, FLIGHT_YEARS);
    if (!day.ok) problems.push(dayProblem('flightDate', flightDate, day.problem, FLIGHT_YEARS));
  }
  if (problems.length > 0) return { ok: false, message: `Invalid query: ${problems.join('; ')}` };
  return {
    ok: true,
    input: {
      origin: origin!,
      destination: destination!,
      airline: airline!.toUpperCase(),
      outcome: outcome as Outcome,
      arrivalDelayMinutes,
      divertedTo,
      ...(flightDate ? { flightDate } : {}),
    },
  };
}

export function compensationRoutes(app: HttpServer, deps: { airports: ReferenceAirports }): void {
  app.get(
    '/api/v1/compensation',
    {
      config: { access: 'key' },
      schema: {
        summary: 'Assess EU261 and UK261 compensation for a route and an outcome',
        description:
          'Whether Regulation (EC) 261/2004 and the UK Regulation cover the flight and what they owe per passenger. ' +
          'Requires a key; unmetered. Rules and sources: docs/compensation.md.',
        tags: ['compensation'],
        security: [{ bearer: [] }, { apiKey: [] }, { legacyApiKey: [] }],
        querystring: Type.Object({
          origin: Type.String({ description: 'IATA code of the departure airport' }),
          destination: Type.String({ description: 'IATA code of the filed destination' }),
          airline: Type.String({ description: 'IATA (or ICAO) code of the operating carrier' }),
          outcome: Type.String({ enum: [...OUTCOMES], description: 'What happened to the flight' }),
          arrivalDelayMinutes: Type.Optional(
            Type.Integer({
              minimum: -99999,
              maximum: 99999,
              description:
                'Arrival delay at the destination, minutes. For a diversion to an airport serving the same city or region as the destination: ' +
                "the delay of the passenger's final arrival at the booked destination (or the agreed nearby airport) after the carrier's transfer; " +
                'owed from 3 hours. Not used for other diversions, which count as cancellations',
            }),
          ),
          divertedTo: Type.Optional(
            Type.String({ description: 'IATA code of the airport where a diverted flight landed' }),
          ),
          flightDate: Type.Optional(
            Type.String({
              description:
                'The flight date, YYYY-MM-DD (a calendar date from 1970 to 2099): with it, the claim deadlines (`deadlines`) of the countries connected to the flight',
            }),
          ),
        }),
        response: {
          200: withCreditHeaders(Envelope(AssessmentSchema, 'The assessment')),
          ...errors(400, 401, 402, 403),
        },
      },
      validatorCompiler: () => (data: unknown) => {
        const parsed = parseCompensationQuery((data ?? {}) as Raw);
        return parsed.ok ? { value: parsed.input } : { error: new ApiError('invalid_request', parsed.message) };
      },
    },
    async (request) => {
      const input = request.query as unknown as AssessmentInput;
      const assessment = assess(deps.airports, input);
      if (!assessment) {
        const unknown = [input.origin, input.destination].filter((code) => !findAirport(deps.airports, code));
        throw new ApiError(
          'invalid_request',
          `Invalid query: unknown airport ${unknown.join(', ')} (origin and destination must be IATA codes of real airports)`,
        );
      }
      // An unknown diversion airport would silently count as "not serving the destination's region".
      if (input.divertedTo && !findAirport(deps.airports, input.divertedTo)) {
        throw new ApiError(
          'invalid_request',
          `Invalid query: unknown airport ${input.divertedTo} (divertedTo must be the IATA code of a real airport)`,
        );
      }
      return { success: true as const, data: assessment };
    },
  );
}
