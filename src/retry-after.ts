// Retry-After (RFC 9110 10.2.3), as both directions of the service read it: a flight-data provider's
// 429 (providers/upstream.ts) and a webhook receiver's 429 or 503 (webhooks/sender.ts). Each caller
// clamps what it keeps. No imports: any capability may use it.

/**
 * The wait a Retry-After value asks for, in milliseconds: delay-seconds (digits; a fraction is taken
 * too), or an HTTP date (Date.parse, which reads the IMF-fixdate, RFC 850 and asctime forms RFC 9110
 * requires; a date in the past is 0). Null when it is neither: a date must have a day or month name,
 * so "-5" or "12:00" is not read as one. Very long numbers stay finite.
 */
export function retryAfterMs(value: string | string[] | undefined, now: number): number | null {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return null;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.min(Number(text) * 1000, Number.MAX_SAFE_INTEGER);
  if (!/[a-z]/i.test(text)) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
