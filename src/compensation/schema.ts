// The assessment as the API describes and serialises it (GET /api/v1/compensation, and
// `data.compensation` of a settled flight lookup).
import { Type } from 'typebox';

const Band = Type.Unsafe<'short' | 'medium' | 'long' | null>({
  type: ['string', 'null'],
  enum: ['short', 'medium', 'long', null],
  description:
    'short: up to 1,500 km; medium: 1,500–3,500 km and intra-EU flights beyond; long: other flights over 3,500 km; null when the regulation does not apply',
});
const Amount = (currency: string) =>
  Type.Unsafe<number | null>({
    type: ['number', 'null'],
    description: `Owed per passenger in ${currency}; null when nothing is owed or the regulation does not apply`,
  });

export const AssessmentSchema = Type.Object(
  {
    eu261: Type.Object({
      applies: Type.Boolean({ description: 'Regulation (EC) 261/2004 covers the flight' }),
      amountEur: Amount('euros'),
      band: Band,
      reduced: Type.Boolean({ description: 'Halved under Art. 7(2)' }),
    }),
    uk261: Type.Object({
      applies: Type.Boolean({ description: 'The UK Regulation (retained EU 261/2004, SI 2019/278) covers the flight' }),
      amountGbp: Amount('pounds sterling'),
      band: Band,
      reduced: Type.Boolean({ description: 'Halved under Art. 7(2)' }),
    }),
    distanceKm: Type.Integer({ description: 'Great-circle distance origin → destination (OurAirports coordinates)' }),
    rationale: Type.Array(Type.String(), {
      description: 'Why each regulation applies or not, and what the outcome owes',
    }),
    deadlines: Type.Optional(
      Type.Array(
        Type.Object({
          country: Type.String({ description: 'ISO 3166 code' }),
          connections: Type.Array(Type.Unsafe<string>({ type: 'string', enum: ['departure', 'arrival', 'carrier'] }), {
            description:
              "How the flight is connected to the country: its departure or arrival airport, or the operating carrier's licence",
          }),
          period: Type.String({ description: 'The limitation period, e.g. `3 years`, `24 months`' }),
          runsFrom: Type.Unsafe<string>({
            type: 'string',
            enum: ['flight', 'end_of_year'],
            description: 'From the flight date, or from the end of its year (Germany)',
          }),
          runsOutOn: Type.String({ description: 'The last day a claim can be brought there, YYYY-MM-DD' }),
          uncertain: Type.Boolean({ description: 'Published sources disagree, or no primary source was found' }),
          note: Type.Unsafe<string | null>({
            type: ['string', 'null'],
            description: 'What the sources say besides the period',
          }),
          sources: Type.Array(Type.String(), { description: 'Where the period comes from' }),
        }),
        {
          description:
            'Claim deadlines (C-139/11 Moré: national limitation periods apply) in the countries connected to the flight, soonest first; given with a flight date where a regulation applies (docs/compensation.md)',
        },
      ),
    ),
    amountAtRisk: Type.Optional(
      Type.Union([Type.Boolean(), Type.Null()], {
        description:
          'On a flight lookup with circumstances, where an amount is owed: true when the evidence shows circumstances that are likely or possibly extraordinary (Art. 5(3)), so the airline may refuse the amount; false when it shows none; null when the evidence could not be gathered (circumstances.assessment unknown). The rationale says why',
      }),
    ),
  },
  { title: 'Compensation' },
);
