// Invoicing and charging (docs/billing.md): the invoicing job, retries of declined
// charges, and who charges (nobody, a local simulation of Stripe, or Stripe).
import { Type } from 'typebox';
import { capability, custom, integer, invalid, oneOf } from './setting.js';

export interface BillingConfig {
  /** How often the invoicing job runs. */
  intervalMs: number;
  /** How long after a month ends its overage is invoiced (late requests land in it first). */
  graceMs: number;
  /** Retries of a declined charge, as delays after the invoice opened. */
  retryDelaysMs: number[];
  /**
   * manual: nothing is charged, invoices stay open until the operator marks them paid; simulated:
   * Stripe's test payment methods answered locally (demos); stripe: Stripe charges (needs `stripe`).
   */
  gateway: 'manual' | 'simulated' | 'stripe';
  stripe: { key: string; url: string; webhookSecret: string | null } | null;
}

/** Whole days from 1 to 60, increasing, at most 10: "1,3,5". */
function parseRetryDays(text: string): number[] | null {
  const days = text.split(',').map((d) => (/^\d+$/.test(d.trim()) ? Number(d.trim()) : null));
  const fits = days.every((d, i) => d !== null && d >= 1 && d <= 60 && (i === 0 || d > days[i - 1]!));
  return fits && days.length <= 10 ? (days as number[]) : null;
}

export const billing = capability({
  title: 'Billing (docs/billing.md)',
  settings: {
    FLIGHTSTATUS_BILLING_INTERVAL_MINUTES: integer({
      default: '60',
      min: 1,
      max: 24 * 60,
      unit: 'minutes',
      clip: 40,
      doc: 'how often the invoicing job runs',
      comment:
        'How often the invoicing job runs; how long after midnight on the 1st (UTC) the month before is ' +
        'invoiced, so requests in flight at midnight land in it; and when a declined charge is retried ' +
        '(days after the invoice opened; after the last, the account is past due and answers 402 until ' +
        'the invoice is paid).',
    }),
    FLIGHTSTATUS_BILLING_GRACE_MINUTES: integer({
      default: '60',
      min: 0,
      max: 7 * 24 * 60,
      unit: 'minutes',
      clip: 40,
      doc: 'how long after midnight on the 1st (UTC) the month before is invoiced, so requests in flight land in it',
    }),
    FLIGHTSTATUS_BILLING_RETRY_DAYS: custom({
      default: '1,3,5',
      schema: Type.Array(Type.Integer({ minimum: 1, maximum: 60 }), { minItems: 1, maxItems: 10 }),
      parse: (text) =>
        parseRetryDays(text) ??
        invalid(
          `FLIGHTSTATUS_BILLING_RETRY_DAYS must be increasing whole days from 1 to 60, comma-separated, at most 10, e.g. "1,3,5" (got "${text.slice(0, 40)}")`,
        ),
      doc: 'when a declined charge is retried, in days after the invoice opened; after the last, the account is past due (402)',
    }),
    FLIGHTSTATUS_PAYMENT_GATEWAY: oneOf(['manual', 'simulated', 'stripe'], {
      default: 'manual',
      listing: 'or',
      clip: 40,
      doc: "`manual` (nothing is charged; the operator marks invoices paid), `simulated` (Stripe's test payment methods answered locally, for demos) or `stripe` (needs `FLIGHTSTATUS_STRIPE_KEY`)",
      comment:
        'Who charges invoices: manual (nothing is charged; the operator marks invoices paid), simulated ' +
        "(Stripe's test payment methods answered locally, for demos: pm_card_visa pays, " +
        'pm_card_chargeDeclined declines) or stripe (needs the secret key, sk_live_… or sk_test_…). The ' +
        'signing secret (whsec_…) of the Stripe webhook endpoint pointing at /api/billing/stripe/events ' +
        'verifies what Stripe reports back.',
    }),
    FLIGHTSTATUS_STRIPE_KEY: custom({
      default: '',
      schema: Type.String({ pattern: '^((sk|rk)_(test|live)_[A-Za-z0-9]+)?$' }),
      // The key is never repeated in the message: it reaches logs.
      parse: (text) =>
        text === '' || /^(sk|rk)_(test|live)_[A-Za-z0-9]+$/.test(text)
          ? text
          : invalid('FLIGHTSTATUS_STRIPE_KEY must be a Stripe secret or restricted key (sk_live_…, sk_test_…, rk_…)'),
      doc: "Stripe's secret or restricted key (`sk_live_…`, `sk_test_…`, `rk_…`); set exactly when the gateway is `stripe`; never logged",
    }),
    FLIGHTSTATUS_STRIPE_URL: custom({
      default: 'https://api.stripe.com',
      schema: Type.String({ pattern: '^https?://[^\\s/]+' }),
      parse: (text) => {
        const url = text.replace(/\/+$/, '');
        return /^https?:\/\/[^\s/]+/.test(url)
          ? url
          : invalid(`FLIGHTSTATUS_STRIPE_URL must be an http(s) base URL (got "${url.slice(0, 60)}")`);
      },
      doc: "Stripe's API base URL",
    }),
    FLIGHTSTATUS_STRIPE_WEBHOOK_SECRET: custom({
      default: '',
      schema: Type.String({ pattern: '^(whsec_[A-Za-z0-9+/=]+)?$' }),
      parse: (text) =>
        text === '' || /^whsec_[A-Za-z0-9+/=]+$/.test(text)
          ? text
          : invalid("FLIGHTSTATUS_STRIPE_WEBHOOK_SECRET must be the endpoint's signing secret (whsec_…)"),
      doc: 'the signing secret (`whsec_…`) of the Stripe webhook endpoint pointing at `/api/billing/stripe/events`; empty: that route is not served',
    }),
  },
  check({ values, text: given, problem }) {
    const key = given.FLIGHTSTATUS_STRIPE_KEY;
    if (given.FLIGHTSTATUS_STRIPE_WEBHOOK_SECRET !== '' && key === '') {
      problem(
        'FLIGHTSTATUS_STRIPE_WEBHOOK_SECRET needs FLIGHTSTATUS_STRIPE_KEY (Stripe events only matter when Stripe charges)',
      );
    }
    const gateway = values.FLIGHTSTATUS_PAYMENT_GATEWAY;
    if (gateway !== undefined && (gateway === 'stripe') !== (key !== '')) {
      problem(
        gateway === 'stripe'
          ? 'FLIGHTSTATUS_PAYMENT_GATEWAY=stripe needs FLIGHTSTATUS_STRIPE_KEY'
          : `FLIGHTSTATUS_STRIPE_KEY is set but FLIGHTSTATUS_PAYMENT_GATEWAY is ${gateway}: set FLIGHTSTATUS_PAYMENT_GATEWAY=stripe to charge through Stripe`,
      );
    }
  },
  build: (v): { billing: BillingConfig } => ({
    billing: {
      gateway: v.FLIGHTSTATUS_PAYMENT_GATEWAY,
      intervalMs: v.FLIGHTSTATUS_BILLING_INTERVAL_MINUTES * 60_000,
      graceMs: v.FLIGHTSTATUS_BILLING_GRACE_MINUTES * 60_000,
      retryDelaysMs: v.FLIGHTSTATUS_BILLING_RETRY_DAYS.map((d) => d * 86_400_000),
      stripe:
        v.FLIGHTSTATUS_STRIPE_KEY === ''
          ? null
          : {
              key: v.FLIGHTSTATUS_STRIPE_KEY,
              url: v.FLIGHTSTATUS_STRIPE_URL,
              webhookSecret: v.FLIGHTSTATUS_STRIPE_WEBHOOK_SECRET === '' ? null : v.FLIGHTSTATUS_STRIPE_WEBHOOK_SECRET,
            },
    },
  }),
});
