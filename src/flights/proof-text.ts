// The proof's text (proof.ts draws it): the Inter typeface's two weights, text at the largest size that
// fits a width, wrapped at whole words and never cut, and the verdict's sentences laid out in the room
// the card leaves them.
import type { SKRSContext2D } from '@napi-rs/canvas';

/** The names the typeface's two weights are registered under. */
export const REGULAR = 'ProofInter';
export const BOLD = 'ProofInterBold';

/** Line height, a multiple of the font size. */
export const LINE = 1.4;

export const font = (size: number, bold = false) => `${size}px ${bold ? BOLD : REGULAR}`;

/**
 * `value` at the largest size from `size` down to `min` at which it fits `width` in `lines` lines of
 * whole words; at `min`, in as many lines as it takes. A word wider than `width` alone is drawn
 * smaller still, so nothing is ever cut.
 */
export function fit(
  ctx: SKRSContext2D,
  value: string,
  width: number,
  size: number,
  min: number,
  lines: number,
  bold = false,
): { size: number; lines: string[] } {
  for (let s = size; s >= min; s--) {
    ctx.font = font(s, bold);
    const wrapped = wrap(ctx, value, width);
    if (wrapped.length <= lines) return { size: s, lines: wrapped };
  }
  ctx.font = font(min, bold);
  let s = min;
  const widest = () => Math.max(...value.split(/\s+/).map((word) => ctx.measureText(word).width));
  while (s > 6 && widest() > width) ctx.font = font(--s, bold);
  return { size: s, lines: wrap(ctx, value, width) };
}

/**
 * The verdict's text in the room between the headline and the rule (`width` by `height`): the first
 * two sentences of the rationale (or the first alone where both do not fit), the circumstances and
 * what is owed, each whole, at the largest size at which all fit.
 */
export function verdictBlocks(
  ctx: SKRSContext2D,
  width: number,
  height: number,
  reasons: string[],
  why: string | null,
  owed: string | null,
): { size: number; bold: boolean; lines: string[] }[] {
  const layout = (sentences: string[], size: number) => {
    const parts = [
      ...(sentences.length > 0 ? [{ text: sentences.join(' '), bold: false }] : []),
      ...(why ? [{ text: why, bold: true }] : []),
      ...(owed ? [{ text: owed, bold: true }] : []),
    ];
    return parts.map((part) => {
      ctx.font = font(size, part.bold);
      return { size, bold: part.bold, lines: wrap(ctx, part.text, width) };
    });
  };
  const heightOf = (blocks: { size: number; lines: string[] }[]) =>
    blocks.reduce((h, b) => h + b.lines.length * b.size * LINE, 0);
  for (const sentences of [reasons, reasons.slice(0, 1)]) {
    for (let size = 21; size >= 13; size--) {
      const blocks = layout(sentences, size);
      if (heightOf(blocks) <= height) return blocks;
    }
  }
  return layout(reasons.slice(0, 1), 13);
}

function wrap(ctx: SKRSContext2D, value: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of value.split(/\s+/).filter(Boolean)) {
    const next = line ? `${line} ${word}` : word;
    if (ctx.measureText(next).width > width && line) {
      lines.push(line);
      line = word;
    } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}
