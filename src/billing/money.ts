// Money as integers, never floats (docs/billing.md, "Money"): amounts in a currency's minor units
// (cents), and per-request prices, which are often fractions of a cent, in millionths of a minor unit
// ("micro-minor"): €0.002 a request is 200,000 micro-cents. Decimal strings in and out of the API
// are converted exactly; no binary floating point touches an amount.

/** ISO 4217 minor-unit exponents of the currencies a plan may be priced in. */
export const CURRENCIES: Readonly<Record<string, number>> = {
  EUR: 2,
  GBP: 2,
  USD: 2,
  CHF: 2,
  SEK: 2,
  NOK: 2,
  DKK: 2,
  PLN: 2,
  CZK: 2,
  RON: 2,
  HUF: 2,
  CAD: 2,
  AUD: 2,
  JPY: 0,
};

/** Millionths of a minor unit per minor unit. */
export const MICRO = 1_000_000;
/** The largest amount accepted, in major units (far above any plan fee; keeps sums in safe integers). */
const MAX_MAJOR = 1_000_000;

export type Parsed = { ok: true; value: number } | { ok: false; message: string };

/** "49.00" in EUR → 4900. At most as many decimals as the currency has; 0 to 1,000,000. */
export function parseAmount(text: string, currency: string, name: string): Parsed {
  return parseScaled(text, CURRENCIES[currency]!, 0, name, `a ${currency} amount such as ${example(currency, '49')}`);
}

/** "0.002" in EUR → 200000 (micro-cents). Up to six more decimals than the currency has. */
export function parseUnitPrice(text: string, currency: string, name: string): Parsed {
  return parseScaled(
    text,
    CURRENCIES[currency]!,
    6,
    name,
    `a ${currency} price per request such as ${CURRENCIES[currency] === 0 ? '0.5' : '0.002'}`,
  );
}

function parseScaled(text: string, exponent: number, extra: number, name: string, what: string): Parsed {
  const decimals = exponent + extra;
  const match = /^(\d{1,7})(?:\.(\d+))?$/.exec(text.trim());
  if (!match || (match[2] ?? '').length > decimals || Number(match[1]) > MAX_MAJOR) {
    return {
      ok: false,
      message: `${name} must be ${what}, with at most ${decimals} decimals (got ${JSON.stringify(text.slice(0, 40))})`,
    };
  }
  const fraction = (match[2] ?? '').padEnd(decimals, '0');
  return { ok: true, value: Number(match[1]) * 10 ** decimals + Number(fraction || '0') };
}

/** 4900 (EUR) → "49.00". */
export function formatAmount(minor: number, currency: string): string {
  return formatScaled(minor, CURRENCIES[currency]!);
}

/** 200000 (EUR micro-cents) → "0.002": the shortest exact decimal. */
export function formatUnitPrice(microMinor: number, currency: string): string {
  const text = formatScaled(microMinor, CURRENCIES[currency]! + 6);
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

function formatScaled(value: number, decimals: number): string {
  if (decimals === 0) return String(value);
  const digits = String(value).padStart(decimals + 1, '0');
  return `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}

/**
 * `count` requests at `microMinor` each, in minor units, rounded half up once, on the total (never
 * per request). Exact: the product is computed with BigInt.
 */
export function lineTotal(count: number, microMinor: number): number {
  const micro = BigInt(count) * BigInt(microMinor);
  return Number((micro + BigInt(MICRO / 2)) / BigInt(MICRO));
}

const example = (currency: string, major: string) =>
  CURRENCIES[currency] === 0 ? major : `${major}.${'0'.repeat(CURRENCIES[currency]!)}`;
