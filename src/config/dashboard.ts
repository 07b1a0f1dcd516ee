// The dashboard's sign-up: which plan a new account gets, and how many sign-ups an hour allows.
import { Type } from 'typebox';
import { capability, custom, integer, invalid } from './setting.js';

export interface DashboardConfig {
  /** FLIGHTSTATUS_SIGNUP_PLAN: the plan of accounts made by sign-up; null when sign-up is off (invitations only). */
  signupPlan: { included: number; overage: boolean } | null;
  /** log2(N) of new password hashes: OWASP's 17; only tests ask for less (verification reads each hash's own). */
  passwordCost?: number;
  /**
   * FLIGHTSTATUS_SIGNUPS_PER_ADDRESS_PER_HOUR and FLIGHTSTATUS_SIGNUPS_PER_HOUR: sign-ups per client
   * address (an IPv6 address counts by its /64) and in all, per clock hour (docs/dashboard.md).
   */
  signupLimits?: { perAddress: number; overall: number };
}

const SIGNUP_HINT = 'FLIGHTSTATUS_SIGNUP_PLAN=off closes sign-up';

export const dashboard = capability({
  title: 'Dashboard sign-up (docs/dashboard.md)',
  settings: {
    FLIGHTSTATUS_SIGNUP_PLAN: custom({
      default: '1000',
      schema: Type.Union([
        Type.Object({ included: Type.Integer({ minimum: 0, maximum: 1_000_000_000 }), overage: Type.Boolean() }),
        Type.Null(),
      ]),
      parse: (text) => {
        const plan = parseSignupPlan(text);
        return plan !== undefined
          ? plan
          : invalid(
              `FLIGHTSTATUS_SIGNUP_PLAN must be "off", a number of included requests per window such as "1000", or that with "+overage" (got "${text.slice(0, 40)}")`,
            );
      },
      doc: 'the plan of an account created by dashboard sign-up: included requests per 30-day window (`1000`), optionally `+overage` (`5000+overage`); `off`: invitations only ([docs/dashboard.md](docs/dashboard.md))',
      comment:
        "The dashboard's sign-up (docs/dashboard.md): the plan of an account created there, as included " +
        'requests per 30-day window ("1000"), optionally with "+overage" ("5000+overage"); or "off", so ' +
        'that people join only through `flightstatus accounts invite ACCOUNT` links.',
    }),
    FLIGHTSTATUS_SIGNUPS_PER_ADDRESS_PER_HOUR: integer({
      default: '5',
      min: 1,
      max: 1_000_000,
      unit: 'an integer',
      clip: 40,
      hint: SIGNUP_HINT,
      doc: 'dashboard sign-ups per clock hour from one client address (IPv6: per /64); past it, 429 with `Retry-After` ([docs/dashboard.md](docs/dashboard.md#sign-up-limits))',
      comment:
        'Sign-ups allowed per clock hour from one client address (an IPv6 address counts by its /64) and ' +
        'in all, counted in the database so every process shares them; past either, 429 with Retry-After.',
    }),
    FLIGHTSTATUS_SIGNUPS_PER_HOUR: integer({
      default: '100',
      min: 1,
      max: 1_000_000,
      unit: 'an integer',
      clip: 40,
      hint: SIGNUP_HINT,
      doc: 'dashboard sign-ups per clock hour in all; past it, 429 with `Retry-After`',
    }),
  },
  build: (v): { dashboard: DashboardConfig } => ({
    dashboard: {
      signupPlan: v.FLIGHTSTATUS_SIGNUP_PLAN,
      signupLimits: {
        perAddress: v.FLIGHTSTATUS_SIGNUPS_PER_ADDRESS_PER_HOUR,
        overall: v.FLIGHTSTATUS_SIGNUPS_PER_HOUR,
      },
    },
  }),
});

/** "off" → null; "1000" or "1000+overage" → a plan; anything else → undefined (a problem). */
export function parseSignupPlan(text: string): DashboardConfig['signupPlan'] | undefined {
  const value = text.trim().toLowerCase();
  if (value === 'off') return null;
  const match = /^(\d{1,10})(\+overage)?$/.exec(value);
  if (!match || Number(match[1]) > 1_000_000_000) return undefined;
  return { included: Number(match[1]), overage: match[2] !== undefined };
}
