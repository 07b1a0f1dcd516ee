// docs/performance.md is written by several benches: each owns one `## Heading` section and
// replaces only that one, keeping the others.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SMOKE_DOC } from './smoke.mjs';

export const DOC = SMOKE_DOC ?? join(fileURLToPath(new URL('..', import.meta.url)), 'docs/performance.md');

/** The markdown with the section under `heading` replaced by `section` (appended when absent). */
export function withSection(markdown, heading, section) {
  const trim = (text) => text.replace(/\s+$/, '');
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.trim() === heading);
  if (start === -1) return `${trim(markdown)}\n\n${trim(section)}\n`;
  let end = lines.findIndex((line, i) => i > start && /^#{1,2} /.test(line));
  if (end === -1) end = lines.length;
  const before = trim(lines.slice(0, start).join('\n'));
  const after = trim(lines.slice(end).join('\n'));
  return [before, trim(section), after].filter(Boolean).join('\n\n') + '\n';
}

/** Replaces one section of docs/performance.md in place. */
export function writeSection(heading, section) {
  let markdown;
  try {
    markdown = readFileSync(DOC, 'utf8');
  } catch {
    markdown = '# Performance\n';
  }
  writeFileSync(DOC, withSection(markdown, heading, section));
}

/**
 * `markdown` with every `## ` section of `existing` that it lacks appended, in their order: a bench
 * that writes only some sections (the HTTP scenarios alone, or all but the invoicing and disk
 * benches' own) keeps what the others measured.
 */
export function keepOtherSections(existing, markdown) {
  const headings = (text) =>
    text
      .split('\n')
      .filter((line) => /^## /.test(line))
      .map((line) => line.trim());
  const have = new Set(headings(markdown));
  let merged = markdown;
  const lines = existing.split('\n');
  for (const heading of headings(existing)) {
    if (have.has(heading)) continue;
    const start = lines.findIndex((line) => line.trim() === heading);
    let end = lines.findIndex((line, i) => i > start && /^#{1,2} /.test(line));
    if (end === -1) end = lines.length;
    merged = `${merged.replace(/\s+$/, '')}\n\n${lines.slice(start, end).join('\n').replace(/\s+$/, '')}\n`;
  }
  return merged;
}
