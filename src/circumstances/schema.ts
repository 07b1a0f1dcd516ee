// `data.circumstances` as the API describes and serialises it (docs/flight-lookup.md, "Circumstances").
import { Type } from 'typebox';
import { DateTime } from '../http/schemas.js';
import { AIRCRAFT_SEEN, ASSESSMENTS, BASELINES, BOARDS_SEEN, CAUSES, WEATHER_SEEN } from './shapes.js';

const Enum = (values: readonly string[], description: string) =>
  Type.Unsafe<string>({ type: 'string', enum: [...values], description });

const LegRef = Type.Object(
  {
    flightNumber: Type.String({ description: 'Designator of the leg, e.g. W63101' }),
    flightDate: Type.String({ description: 'Its flight date (scheduled departure, UTC), YYYY-MM-DD' }),
    origin: Type.String({ description: 'IATA code' }),
    destination: Type.String({ description: 'IATA code' }),
  },
  { description: 'An earlier flight of the same aircraft' },
);

export const CircumstancesSchema = Type.Object(
  {
    assessment: Enum(
      ASSESSMENTS,
      "Whether the evidence supports extraordinary circumstances (Art. 5(3)): likely_extraordinary (weather beyond limits in the reports at the time), possibly_extraordinary (an airport-wide wave of delays or cancellations, or a strike day, whose cause the boards do not say), not_indicated (the evidence shows only the airline's own causes), unknown (a part of the evidence that could show an extraordinary circumstance could not be gathered, and the rest shows none: see seen)",
    ),
    cause: Enum(
      CAUSES,
      "The most likely cause: weather, atc, airport, technical, crew, airline_strike, third_party_strike, knock_on (a late inbound aircraft: see originLeg), or unknown (the evidence does not say which; with assessment not_indicated, one of the airline's own). With assessment unknown, a cause named is what the evidence gathered leaves, not what it shows",
    ),
    originLeg: Type.Unsafe<{ flightNumber: string; flightDate: string; origin: string; destination: string } | null>({
      ...LegRef,
      type: ['object', 'null'],
      description:
        'For a knock-on: the earlier flight of the same aircraft where the disruption started; null when it started on this flight',
    }),
    weather: Type.Array(
      Type.Object({
        airport: Type.String({ description: 'IATA code' }),
        at: DateTime('When the report was observed'),
        flags: Type.Array(Type.String(), {
          description:
            'Empty when the report shows no weather that matters; else among thunderstorm, low_visibility, below_minima, ceiling_unknown, freezing_precipitation, snow, heavy_snow, strong_wind, crosswind, volcanic_ash (thresholds: docs/weather.md)',
        }),
        report: Type.String({ description: 'The METAR as issued' }),
      }),
      {
        description:
          'Every report consulted, flagged or not, in time order (then by airport): from an hour before to half an hour after the scheduled and actual departure and arrival of this flight (and of its origin leg). A clean report at the time is evidence too',
      },
    ),
    airport: Type.Array(
      Type.Object({
        airport: Type.String({ description: 'IATA code' }),
        from: DateTime('Window start'),
        to: DateTime('Window end'),
        cancelled: Type.Integer({ description: 'Flights due in the window that the boards showed cancelled' }),
        delayed: Type.Integer({
          description: 'Flights due in the window the boards showed 15 minutes or more late (and not cancelled)',
        }),
        usual: Type.Object(
          { cancelled: Type.Number(), delayed: Type.Number() },
          { description: 'What the window usually shows, by `baseline`' },
        ),
        baseline: Type.Optional(
          Enum(
            BASELINES,
            'days_before (the mean of the same window on the seven days before that the boards were watched); published_rates (a day read after the fact, or watched boards with no day before watched then: the flights scheduled in the window times the published shares delayed and cancelled, docs/weather.md); published_delays (watched boards whose window the poll kept whole: delays as published_rates, cancellations as days_before). Absent on a replay of a record stored before it was given',
          ),
        ),
      }),
      {
        description:
          "What the boards of the airports showed around the flight's time, watched then or read after the fact; empty where neither was possible",
      },
    ),
    seen: Type.Optional(
      Type.Object(
        {
          weather: Type.Array(
            Type.Object({
              airport: Type.String({ description: 'IATA code' }),
              from: DateTime('Start of the window the reports were asked for'),
              to: DateTime('End of that window'),
              status: Enum(
                WEATHER_SEEN,
                'read (reports were had); not_available (no station known for the airport, or the weather provider had no report or failed)',
              ),
            }),
            { description: 'Each airport and window the weather reports were asked for' },
          ),
          boards: Type.Array(
            Type.Object({
              airport: Type.String({ description: 'IATA code' }),
              from: DateTime('Start of the window of the airport-wide figures'),
              to: DateTime('End of that window'),
              status: Enum(
                BOARDS_SEEN,
                "watched (the service read the airport's boards at the time: its figures are in `airport`); read (not watched, but the boards of that local day were read after the fact from the flight-data provider: its figures are in `airport`; they show how the day ended, not when cancellations were announced); not_watched (neither: no provider configured reads a past day's boards, or the day is not over yet; an airport-wide disruption can be neither shown nor ruled out); not_available (the provider holds no boards of that day, outside its stored range, or could not be read); not_kept (this service keeps no boards of those hours)",
              ),
            }),
            { description: 'Each airport and window whose boards the airport-wide figures would come from' },
          ),
          aircraft: Enum(
            AIRCRAFT_SEEN,
            "followed (the aircraft's other flights of the day were read from a provider); boards (the aircraft's flights the finding needs were all on the boards this service kept, watched or read after the fact, so its day was not asked for); not_needed (a diversion: where it landed decides, and the aircraft's other flights do not bear on it, so they were not asked for); no_registration (the record names no aircraft); not_offered (no provider offers an aircraft's day); not_available (the providers that do had no answer with this flight)",
          ),
        },
        {
          description:
            'What was looked at and what could not be. A part not looked at is never read as nothing happened: the assessment is then unknown, or what the rest of the evidence shows, never not_indicated. Absent only on a replay of a record stored before it was given',
        },
      ),
    ),
    reasons: Type.Array(Type.String(), {
      description:
        'Plain sentences: the evidence, the rule and the case law it bears on, and what could not be checked',
    }),
    cancellationSeenAt: Type.Optional(
      Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
        description:
          "A cancellation: when the boards this service watched first showed it cancelled, the latest it can have been announced (a bound, not the airline's notice to passengers, on which Art. 5(1)(c) turns); null where no watched board showed it. Absent for other outcomes",
      }),
    ),
  },
  {
    title: 'Circumstances',
    description: 'Why a settled flight 3 hours or more late, cancelled or diverted was disrupted (docs/weather.md)',
  },
);
