// What the circumstances mean for the amount owed: it stays the regulation's amount, and the
// assessment says when the airline's defence of extraordinary circumstances (Art. 5(3)) puts it at risk.
import type { Assessment } from '../compensation/index.js';
import type { Circumstances, ExtraordinaryAssessment } from './shapes.js';

/**
 * Whether an amount owed is at risk on this assessment: true where the airline may rely on
 * circumstances the evidence shows as likely or possibly extraordinary, false where the evidence shows
 * none, and null where the evidence could not be gathered (`unknown`): a check not made is neither, and
 * reading it as "not at risk" would read what was not seen as nothing happened (docs/weather.md, "What was not seen").
 */
export function amountAtRisk(assessment: ExtraordinaryAssessment): boolean | null {
  if (assessment === 'unknown') return null;
  return assessment === 'likely_extraordinary' || assessment === 'possibly_extraordinary';
}

export type RiskedAssessment = Assessment & { amountAtRisk?: boolean | null };

export function withRisk(assessment: Assessment, circumstances: Circumstances): RiskedAssessment {
  const owed = assessment.eu261.amountEur !== null || assessment.uk261.amountGbp !== null;
  if (!owed) return assessment;
  const sentence: Record<Circumstances['assessment'], string> = {
    likely_extraordinary:
      'The amount is at risk: the evidence shows circumstances that are likely extraordinary (Art. 5(3)); nothing is owed if the airline proves them and that it took all reasonable measures (C-549/07).',
    possibly_extraordinary:
      'The amount may be at risk: the evidence shows circumstances that may be extraordinary (Art. 5(3)); the airline must prove them and that it took all reasonable measures (C-549/07).',
    not_indicated:
      'The evidence shows no extraordinary circumstance: the amount is not at risk on what could be checked.',
    unknown: 'Whether extraordinary circumstances (Art. 5(3)) put the amount at risk could not be checked.',
  };
  return {
    ...assessment,
    amountAtRisk: amountAtRisk(circumstances.assessment),
    rationale: [...assessment.rationale, ...announced(circumstances), sentence[circumstances.assessment]],
  };
}

/** A cancellation's notice (Art. 5(1)(c): 14 and 7 days ahead), as far as the boards watched can bound it. */
function announced(circumstances: Circumstances): string[] {
  const seen = circumstances.cancellationSeenAt;
  if (seen === undefined) return [];
  return [
    seen
      ? `The boards this service watched first showed the cancellation at ${seen.slice(0, 16).replace('T', ' ')} UTC: it was announced no later than that, though the airline may have told passengers earlier (Art. 5(1)(c) turns on when they were told).`
      : "When the cancellation was announced is not known: no board this service watched showed it before the flight (a past day's board shows how the day ended, not when each cancellation was announced).",
  ];
}
