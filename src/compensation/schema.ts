// The assessment as the API describes and serialises it (GET /api/v1/compensation, and
// `data.compensation` of a settled flight lookup).
import { Type } from 'typebox';

const Band = Type.Unsafe<'short' | 'medium' | 'long' | null>({
  type: ['string', 'null'],
  enum: ['short', 'medium', 'long', null],
  description: 'short: up to 1,500 km; medium: 1,500–3,500 km and intra-EU flights beyond; long: other flights over 3,500 km; null when the regulation does not apply',
});
const Amount = (currency: string) =>
  Type.Unsafe<number | null>({ type: ['number', 'null'], description: `Owed per passenger in ${currency}; null when nothing is owed or the regulation does not apply` });

export const AssessmentSchema = Type.Object({
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
  rationale: Type.Array(Type.String(), { description: 'Why each regulation applies or not, and what the outcome owes' }),
}, { title: 'Compensation' });
