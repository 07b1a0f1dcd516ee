// What the circumstances mean for the amount owed: it stays the regulation's amount, and the
// assessment says when the airline's defence of extraordinary circumstances (Art. 5(3)) puts it at risk.
import type { Assessment } from '../compensation/index.js';
import type { Circumstances } from './shapes.js';

export type RiskedAssessment = Assessment & { amountAtRisk?: boolean };

export function withRisk(assessment: Assessment, circumstances: Circumstances): RiskedAssessment {
  const owed = assessment.eu261.amountEur !== null || assessment.uk261.amountGbp !== null;
  if (!owed) return assessment;
  const sentence: Record<Circumstances['assessment'], string> = {
    likely_extraordinary:
      'The amount is at risk: the evidence shows circumstances that are likely extraordinary (Art. 5(3)); nothing is owed if the airline proves them and that it took all reasonable measures (C-549/07).',
    possibly_extraordinary:
      'The amount may be at risk: the evidence shows circumstances that may be extraordinary (Art. 5(3)); the airline must prove them and that it took all reasonable measures (C-549/07).',
    not_indicated: 'The evidence shows no extraordinary circumstance: the amount is not at risk on what could be checked.',
    unknown: 'Whether extraordinary circumstances (Art. 5(3)) put the amount at risk could not be checked.',
  };
  const atRisk = circumstances.assessment === 'likely_extraordinary' || circumstances.assessment === 'possibly_extraordinary';
  return { ...assessment, amountAtRisk: atRisk, rationale: [...assessment.rationale, sentence[circumstances.assessment]] };
}
