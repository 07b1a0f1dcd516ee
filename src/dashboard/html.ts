// HTML built in TypeScript: `html` is a tagged template whose interpolations are escaped unless they
// are already Html (a nested template, or raw() for markup we wrote). Pages are then ordinary
// functions of typed data, checked by the compiler, with nothing to load at run time; there is no
// way to put a user's text into a page without it being escaped.
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type Interpolated = Html | string | number | boolean | null | undefined | readonly Interpolated[];

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
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
