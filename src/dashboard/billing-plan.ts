// The plan on the Billing page: its price and allowance, a pending change, the subscription's state,
// the self-service plans to switch to (each saying, before it is chosen, when it applies and what it
// costs now), and cancelling at the end of the window (or keeping it).
import type { AccountView, PlanSummary } from '../accounts/index.js';
import { groupThousands, type PlanChoice } from '../billing/index.js';
import { html, type Html } from '../html.js';
import { notice, timeTag } from './layout.js';

const STATUS_LABEL: Record<AccountView['subscription']['status'], string> = {
  active: 'Active',
  past_due: 'Past due',
  canceled: 'Canceled',
  none: 'No subscription',
};

const per = (plan: PlanSummary) =>
  plan.overage ? `${plan.overagePrice} ${plan.currency} a request past the allowance` : 'refused past the allowance';

export function planFacts(account: AccountView, plan: PlanSummary | null): Html {
  const status = html`<div><dt>Subscription</dt><dd>${account.unlimited ? 'Unlimited' : STATUS_LABEL[account.subscription.status]}</dd></div>`;
  if (plan) {
    return html`<dl class="stats" id="plan">
        <div><dt>Plan</dt><dd>${plan.name}</dd></div>
        <div><dt>Fee per 30-day window</dt><dd>${plan.monthlyFee} ${plan.currency}</dd></div>
        <div><dt>Included requests</dt><dd>${groupThousands(plan.included)}</dd></div>
        <div><dt>Overage price</dt><dd>${plan.overage ? `${plan.overagePrice} ${plan.currency}` : 'none'}</dd></div>
        ${status}
      </dl>
      <p class="hint">The fee is billed at the start of each 30-day window; ${plan.included === 1 ? 'the included request is' : 'the included requests are'} per window, and requests past them are ${per(plan)}, billed monthly in arrears.</p>`;
  }
  const allowance = account.unlimited
    ? 'This account is unlimited: its requests are not counted or billed.'
    : account.subscription.plan
      ? `A custom allowance of ${groupThousands(account.subscription.plan.included)} requests per 30-day window, ${account.subscription.plan.overage ? 'with requests past it billed as overage' : 'refused past it'}.`
      : 'No plan: API requests answer 402 Payment Required until the operator gives this account one.';
  return html`<dl class="stats" id="plan">
      <div><dt>Plan</dt><dd>${account.unlimited ? 'Unlimited' : 'Custom'}</dd></div>
      ${status}
    </dl>
    <p>${allowance}</p>`;
}

export function pendingChange(account: AccountView, pending: PlanSummary | null): Html | '' {
  const change = account.subscription.pendingPlan;
  if (!change) return '';
  const terms = pending
    ? html`<strong>${pending.name}</strong> (${pending.monthlyFee} ${pending.currency} a month, ${groupThousands(pending.included)} included requests, ${per(pending)})`
    : html`<strong>${change.planId}</strong> (${groupThousands(change.included)} included requests)`;
  return notice(
    'info',
    html`Plan change: this account moves to ${terms} on ${timeTag(change.from)}, when its next 30-day window starts.`,
  );
}

/** What choosing a plan does, said before it is chosen: billing's quote, the same one the change bills. */
export function choiceNotice(choice: PlanChoice | undefined, currentName: string): Html | string {
  if (!choice) return '';
  if (choice.kind === 'start') return 'Starts now.';
  if (choice.kind === 'current') return 'Keeps this plan: the pending change is dropped.';
  if (choice.kind === 'next_window')
    return html`From ${timeTag(new Date(choice.from).toISOString())}, when the next 30-day window starts; this window keeps ${currentName}.`;
  const q = choice.quote;
  if (q.totalMinor === 0) return `Starts now; nothing to pay for the ${q.left} left of this window.`;
  const vat = q.taxPercent === null ? '' : ` (${q.net} ${q.currency} plus ${q.taxPercent} % VAT)`;
  return `Starts now; you pay ${q.total} ${q.currency} now${vat}, prorated for the ${q.left} left of this window.`;
}

/**
 * The plans the operator offers for customers to switch to (self-service): each with its terms, what
 * choosing it does and a button. A dearer plan starts at once and the form carries the time of its
 * quote, so the amount shown is the amount invoiced; any other waits for the next 30-day window, as
 * the API's change does. With a change pending, the current plan can be kept instead.
 */
export function planChoices(
  account: AccountView,
  offered: PlanSummary[],
  csrf: string,
  current: PlanSummary | null,
  quotes: { at: number; choices: Map<string, PlanChoice> },
): Html | '' {
  const pending = account.subscription.pendingPlan?.planId ?? null;
  const currentId = current?.id ?? null;
  const choices = offered.filter((p) => p.id !== (pending ?? currentId));
  if (account.unlimited || choices.length === 0) return '';
  const currentName = current?.name ?? 'its plan';
  const button = (p: PlanSummary, choice: PlanChoice | undefined) =>
    p.id === currentId
      ? 'Keep this plan'
      : choice?.kind === 'upgrade'
        ? `Upgrade to ${p.name} now`
        : `Switch to ${p.name}`;
  return html`<h2 id="change-plan">Change plan</h2>
    <p class="hint">A plan with a higher fee starts at once: its allowance applies to this window (what was used counts against it), and the difference of the fees for the time left of the window is invoiced now. Any other change takes effect when the next 30-day window starts; this window keeps its plan and its allowance.</p>
    <table aria-labelledby="change-plan">
      <thead><tr><th scope="col">Plan</th><th scope="col">Fee per 30-day window</th><th scope="col">Included requests</th><th scope="col">Past them</th><th scope="col">When</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
      <tbody>${choices.map((p) => {
        const choice = quotes.choices.get(p.id);
        const quoted =
          choice?.kind === 'upgrade' ? html`<input type="hidden" name="quotedAt" value="${String(quotes.at)}">` : '';
        return html`<tr>
          <td>${p.name}</td>
          <td>${p.monthlyFee} ${p.currency}</td>
          <td>${groupThousands(p.included)}</td>
          <td>${per(p)}</td>
          <td id="when-${p.id}">${choiceNotice(choice, currentName)}</td>
          <td><form method="post" action="/dashboard/billing/plan"><input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="planId" value="${p.id}">${quoted}<button class="secondary" type="submit" aria-describedby="when-${p.id}">${button(p, choice)}</button></form></td>
        </tr>`;
      })}</tbody>
    </table>`;
}

/** Cancel at the end of the window, or keep a subscription whose cancellation is pending. */
export function cancellation(account: AccountView, csrf: string): Html | '' {
  const { status, cancelAt, plan } = account.subscription;
  const form = (action: string, label: string, kind: string) =>
    html`<form method="post" action="/dashboard/billing/${action}"><input type="hidden" name="_csrf" value="${csrf}"><button class="${kind}" type="submit">${label}</button></form>`;
  if (cancelAt) {
    return html`<h2 id="cancel">Cancellation</h2>
      ${notice('info', html`Your subscription ends on ${timeTag(cancelAt)}, with this window. API requests answer <code>402 Payment Required</code> from then on, and no further fee is billed; this window's overage is invoiced as usual.`)}
      ${form('resume', 'Keep my subscription', 'secondary')}`;
  }
  if (account.unlimited || plan === null || (status !== 'active' && status !== 'past_due')) return '';
  return html`<h2 id="cancel">Cancel the subscription</h2>
    <p class="hint">It ends with the current window, on ${timeTag(account.credits?.periodEnd)}: you keep what you paid for until then, and no fee is billed for the next window.</p>
    ${form('cancel', 'Cancel at the end of this window', 'danger')}`;
}
