// Time zones and the time formats providers write. Providers file flights and boards under the
// airport's local date and time (AeroDataBox, aviationstack), so the adapters convert both ways with
// the IANA zone of the reference airports (Intl, no extra library: the zone data ships with Node).

const formatters = new Map<string, Intl.DateTimeFormat>();

function parts(ms: number, zone: string): Record<string, number> {
  let format = formatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, format);
  }
  const out: Record<string, number> = {};
  for (const part of format.formatToParts(new Date(ms))) if (part.type !== 'literal') out[part.type] = Number(part.value);
  return out;
}

const validity = new Map<string, boolean>();

/** Whether `zone` is an IANA zone name this Node knows (provider data may carry anything). */
export function isZone(zone: string): boolean {
  let valid = validity.get(zone);
  if (valid === undefined) {
    try {
      new Intl.DateTimeFormat('en-GB', { timeZone: zone });
      valid = true;
    } catch {
      valid = false;
    }
    if (validity.size < 1000) validity.set(zone, valid);
  }
  return valid;
}

/** Minutes the zone is ahead of UTC at that instant (negative west of Greenwich). */
export function offsetMinutes(ms: number, zone: string): number {
  const p = parts(ms, zone);
  const wall = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
  return Math.round((wall - Math.floor(ms / 1000) * 1000) / 60_000);
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `YYYY-MM-DDTHH:mm` as a clock on the wall of the zone shows it. */
export function localMinute(ms: number, zone: string): string {
  const p = parts(ms, zone);
  return `${p.year}-${pad(p.month!)}-${pad(p.day!)}T${pad(p.hour!)}:${pad(p.minute!)}`;
}

/**
 * The instant a wall-clock time (`YYYY-MM-DDTHH:mm[:ss]`) names in the zone. In the hour a DST change
 * repeats, the first of the two instants; in the hour it skips, the time an hour later.
 */
export function zonedToUtc(wall: string, zone: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?/.exec(wall);
  if (!m) return null;
  const asUtc = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6] ?? 0));
  if (Number.isNaN(asUtc)) return null;
  // Two passes settle the offset on either side of a change.
  let guess = asUtc - offsetMinutes(asUtc, zone) * 60_000;
  guess = asUtc - offsetMinutes(guess, zone) * 60_000;
  return guess;
}

/** The UTC calendar date (`YYYY-MM-DD`) of an instant. */
export const utcDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** `YYYY-MM-DD` moved by whole days. */
export function addDays(date: string, days: number): string {
  return utcDate(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000);
}

/**
 * An instant in the forms providers write: ISO 8601 (`2024-03-12T07:15:00Z`, `…+01:00`) and
 * AeroDataBox's `2024-03-12 07:15Z` / `2024-03-12 08:15+01:00` (a space, minutes only). A time with
 * neither `Z` nor an offset is refused: it names no instant.
 */
export function parseInstant(text: unknown): number | null {
  if (typeof text !== 'string') return null;
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)\s*(Z|[+-]\d{2}:?\d{2})$/i.exec(text.trim());
  if (!m) return null;
  const zone = m[3]!.toUpperCase() === 'Z' ? 'Z' : m[3]!.length === 5 ? `${m[3]!.slice(0, 3)}:${m[3]!.slice(3)}` : m[3]!;
  const ms = Date.parse(`${m[1]}T${m[2]}${zone}`);
  return Number.isNaN(ms) ? null : ms;
}
