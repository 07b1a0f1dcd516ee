// Names people give things (accounts, API keys, webhook endpoints, plans) are shown back on
// dashboard pages, invoices, CLI tables and log lines, next to other text. A control character
// breaks those lines; a bidirectional control (U+202E RIGHT-TO-LEFT OVERRIDE and its kin) makes a
// name display as something other than what it is ("evil‮moc.knab" shows as "evilbank.com"), and
// the text after it in the same line too. Neither has a use in a name, so both are refused where a
// name comes in, by this one check that every capability imports (it imports nothing itself).

/** C0 controls, DEL and C1 controls. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * The bidirectional formatting characters of Unicode (UAX #9): the embeddings and overrides
 * U+202A–U+202E, the isolates U+2066–U+2069, the marks U+200E, U+200F and the Arabic letter mark
 * U+061C.
 */
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/**
 * Why `value` (trimmed already) cannot be the name given in `field` ("name", "Account name"), as a
 * message that starts with the field's name, or null when it can. `length`: its bounds in characters,
 * when it has any.
 */
export function nameProblem(field: string, value: string, length?: { min: number; max: number }): string | null {
  if (length && (value.length < length.min || value.length > length.max))
    return `${field} must be ${length.min} to ${length.max} characters`;
  if (CONTROL.test(value)) return `${field} must not contain control characters`;
  const bidi = BIDI.exec(value);
  if (bidi) {
    const code = bidi[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    return `${field} must not contain bidirectional control characters (U+${code} at character ${bidi.index + 1}): they make a name display as other text`;
  }
  return null;
}
