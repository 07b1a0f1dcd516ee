// HTML built in TypeScript: `html` is a tagged template whose interpolations are escaped unless they
// are already Html (a nested template, or raw() for markup we wrote). Pages are then ordinary
// functions of typed data, checked by the compiler, with nothing to load at run time; there is no
// way to put a user's text into a page without it being escaped.
const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type Interpolated = Html | string | number | boolean | null | undefined | readonly Interpolated[];

// Control characters have no place in a page: NUL, ESC and the like are parse errors in HTML (a NUL
// may become U+FFFD or vanish, an ESC reaches a terminal that views the source), and a C1 control
// written as a character reference is read as a Windows-1252 letter (&#x80; is "€"). Text from
// outside (a receiver's answer in a delivery's error, a name) may carry them, so each is shown as a
// visible stand-in instead: C0 controls and DEL as their Unicode "control picture" (NUL → ␀, ESC →
// ␛, DEL → ␡), which tells a reader which byte it was, and C1 controls as U+FFFD. Tab, line feed
// and carriage return are text HTML shows (as white space) and are kept.
// eslint-disable-next-line no-control-regex
const SPECIAL = /[&<>"'`\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

function escapeChar(c: string): string {
  const escaped = ESCAPES[c];
  if (escaped !== undefined) return escaped;
  const code = c.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  return code === 0x7f ? '\u2421' : '\ufffd';
}

export function escapeHtml(text: string): string {
  return text.replace(SPECIAL, escapeChar);
}

function render(value: Interpolated): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Interpolated[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

/** Markup we wrote ourselves (never a user's text). */
export const raw = (text: string): Html => new Html(text);
