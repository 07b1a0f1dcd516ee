// The allowance notices (credits at 80 % and 100 % of a window's allowance), told from the gate:
// every admission that took a credit is looked at (one comparison on the hot path), and the one
// that reaches a threshold queues the notice without waiting for it. Each notice is once per
// account and window (its dedupe key), whoever else reaches the same count.
import type { Admission, Gate } from '../metering/index.js';
import type { Notices } from './notices.js';

/** The credits count at which the 80 % notice goes: 80 % of the allowance, rounded up. */
export const eightyPercent = (included: number) => Math.ceil(included * 0.8);

export function creditNotices(gate: Gate, notices: Notices): Gate {
  if (!notices.enabled) return gate;
  const look = (admission: Admission): Admission => {
    if (admission.kind !== 'admitted' || admission.charge === null) return admission;
    const { included, used, window } = admission.position;
    if (included === null || included <= 0) return admission;
    const percent =
      used === included ? 100 : used === eightyPercent(included) && eightyPercent(included) < included ? 80 : null;
    if (percent === null) return admission;
    const { account } = admission.principal;
    const next = account.nextPlan && account.nextPlan.from <= window.start ? account.nextPlan : null;
    void notices.credits({
      accountId: account.id,
      percent,
      used,
      included,
      periodStart: window.start,
      periodEnd: window.end,
      overage: next ? next.overage : account.planOverage,
    });
    return admission;
  };
  return {
    admit: async (headers, usage) => look(await gate.admit(headers, usage)),
    admitPrincipal: async (principal, usage) => look(await gate.admitPrincipal(principal, usage)),
  };
}
