// The billing email receives billing mail only once confirmed (docs/billing.md, "The billing email"):
// when a customer sets or changes it on the dashboard, a one-time link (a week; its SHA-256 stored,
// with the address it confirms) is mailed to that address, and until it is opened billing mail goes
// to the owner as if there were no billing email. Links are limited per account (CONFIRM_LIMITS, the
// shared window counters), so the form cannot be used to mail strangers. An address the operator
// sets (API, CLI) counts as confirmed: the operator vouches for it (docs/decisions.md).
import { randomBytes } from 'node:crypto';
import { hashKey } from '../auth/index.js';
import { DAY, iso } from '../clock.js';
import { takeHourAndDay, type HourAndDay } from '../db/rate-limits.js';
import type { Result } from '../result.js';
import type { BillingDeps } from './deps.js';
import { applyBuyerInput, type BuyerInput } from './parties.js';
import type { BuyerState } from './buyer.js';
import { DetailsStore } from './details-store.js';

export const CONFIRM_MS = 7 * DAY;
/** Confirmation links an account may have mailed: a few retries an hour, a handful a day. */
export const CONFIRM_LIMITS: HourAndDay = { perHour: 3, perDay: 10 };
const BUCKET = 'billing-email:';

export type Throttled = { kind: 'throttled'; message: string; retryAfterSeconds: number };

export class BillingEmail {
  private readonly store: DetailsStore;

  constructor(private readonly o: Pick<BillingDeps, 'db' | 'clock' | 'buyers' | 'notices'> & { limits?: HourAndDay }) {
    this.store = new DetailsStore(o.db);
  }

  private get mailOn(): boolean {
    return this.o.notices?.enabled === true;
  }

  /**
   * The customer's change of the billing details: a new billing email is not confirmed, and its
   * link is mailed (one of the account's allowance: past it, nothing is saved).
   */
  async save(accountId: string, input: BuyerInput): Promise<Result<BuyerState & { linkSent: boolean }> | Throttled> {
    const before = await this.o.buyers.get(accountId);
    const applied = applyBuyerInput(before, input, '');
    if (!applied.ok) return { kind: 'invalid', message: applied.message };
    const mailsLink = this.mailOn && applied.value.email !== null && applied.value.email !== before.email;
    if (mailsLink) {
      const throttled = await this.take(accountId);
      if (throttled) return throttled;
    }
    const saved = await this.o.buyers.set(accountId, input, '', { confirmsEmail: false });
    if (saved.kind !== 'ok') return saved;
    const linkSent = mailsLink && saved.value.email !== null && !saved.value.emailConfirmed;
    if (linkSent) await this.send(accountId, saved.value.email!);
    return { kind: 'ok', value: { ...saved.value, linkSent } };
  }

  /** The link again, for a billing email not confirmed yet. */
  async resend(accountId: string): Promise<Result<{ email: string }> | Throttled> {
    if (!this.mailOn)
      return {
        kind: 'invalid',
        message: 'This service sends no email, so the billing email cannot be confirmed here: ask its operator',
      };
    const { email, emailConfirmed } = await this.o.buyers.get(accountId);
    if (email === null)
      return { kind: 'conflict', message: 'There is no billing email to confirm: invoices go to the account owner' };
    if (emailConfirmed) return { kind: 'conflict', message: `${email} is confirmed already` };
    const throttled = await this.take(accountId);
    if (throttled) return throttled;
    await this.send(accountId, email);
    return { kind: 'ok', value: { email } };
  }

  /** What a link would confirm (the page shows it before asking), or null when it does not work. */
  async open(token: string): Promise<{ accountId: string; email: string } | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
    const link = await this.store.link(hashKey(token));
    if (!link || link.used_at !== null || Number(link.expires_at) <= this.o.clock.now()) return null;
    // A link sent for an address the account has changed since confirms nothing.
    if ((await this.o.buyers.get(link.account_id)).email !== link.email) return null;
    return { accountId: link.account_id, email: link.email };
  }

  /** Confirms the address the link was sent for; what it confirmed, or null when the link does not work. */
  async confirm(token: string): Promise<{ accountId: string; email: string } | null> {
    const link = await this.open(token);
    if (!link) return null;
    const now = this.o.clock.now();
    if (!(await this.store.useLink(hashKey(token), now))) return null;
    return (await this.o.buyers.confirm(link.accountId, link.email, now)) ? link : null;
  }

  private async take(accountId: string): Promise<Throttled | null> {
    const now = this.o.clock.now();
    const limits = this.o.limits ?? CONFIRM_LIMITS;
    const refused = await takeHourAndDay(this.o.db, `${BUCKET}${accountId}`, limits, now);
    if (!refused) return null;
    const when =
      refused.window === 'hour'
        ? `in ${Math.ceil(refused.retryAfterSeconds / 60)} minutes`
        : `after ${iso(now + refused.retryAfterSeconds * 1000)
            .slice(0, 16)
            .replace('T', ' ')} UTC`;
    const most = refused.window === 'hour' ? `${limits.perHour} an hour` : `${limits.perDay} a day`;
    return {
      kind: 'throttled',
      message: `Too many confirmation links for this account (at most ${most}): try again ${when}`,
      retryAfterSeconds: refused.retryAfterSeconds,
    };
  }

  private async send(accountId: string, email: string): Promise<void> {
    const token = randomBytes(32).toString('base64url');
    const now = this.o.clock.now();
    await this.store.addLink({ hash: hashKey(token), accountId, email, at: now, expiresAt: now + CONFIRM_MS });
    await this.o.notices?.billingEmailConfirmation({ accountId, email, token, expiresAt: now + CONFIRM_MS });
  }
}
