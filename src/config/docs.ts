// The README's configuration table and .env.example, written from the schema so that neither can
// disagree with what the loader reads. `npm run config:docs` writes them; docs.test.ts fails when
// the committed text differs from what this writes.
import { CAPABILITIES } from './schema.js';

/** Comment lines in .env.example are wrapped to this width, "# " included. */
const WIDTH = 100;

const ENV_HEADER = [
  'Flight Status Service configuration. Copy to .env (read at start-up; variables already set in the ' +
    'environment win) or export the variables. Every value below is the default.',
  'Written by `npm run config:docs` from src/config/ (one file per capability): change the settings there.',
];

export const README_START =
  '<!-- config:start: written by `npm run config:docs` from src/config/; change the settings there -->';
export const README_END = '<!-- config:end -->';

/** `# `-prefixed lines of at most WIDTH characters; a line of the text that starts with spaces is kept as it is. */
function commentLines(text: string): string[] {
  const out: string[] = [];
  for (const paragraph of text.split('\n')) {
    if (/^\s/.test(paragraph)) {
      out.push(`# ${paragraph}`);
      continue;
    }
    let line = '#';
    for (const word of paragraph.split(' ').filter((w) => w !== '')) {
      if (line !== '#' && line.length + 1 + word.length > WIDTH) {
        out.push(line);
        line = '#';
      }
      line += ` ${word}`;
    }
    out.push(line);
  }
  return out;
}

/** .env.example: every variable at its default, under its capability's heading and comment. */
export function renderEnvExample(): string {
  const lines = ENV_HEADER.flatMap(commentLines);
  for (const part of CAPABILITIES) {
    lines.push('', `# ---- ${part.title} ----`);
    let first = true;
    for (const [name, setting] of Object.entries(part.settings)) {
      if (setting.comment !== undefined) {
        if (!first) lines.push('');
        lines.push(...commentLines(setting.comment));
      }
      lines.push(`${name}=${setting.default}`);
      first = false;
    }
  }
  return `${lines.join('\n')}\n`;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

/** The README's table: one row per variable, in schema order, between its markers. */
export function renderReadmeTable(): string {
  const rows = ['| Variable | Default | Meaning |', '|---|---|---|'];
  for (const part of CAPABILITIES) {
    for (const [name, setting] of Object.entries(part.settings)) {
      const shown = setting.default === '' ? 'empty' : `\`${setting.default}\``;
      rows.push(`| \`${name}\` | ${cell(shown)} | ${cell(setting.doc)} |`);
    }
  }
  return [README_START, ...rows, README_END].join('\n');
}

/** README.md with its configuration table replaced by the schema's. */
export function replaceReadmeTable(readme: string): string {
  const start = readme.indexOf(README_START);
  const end = readme.indexOf(README_END);
  if (start < 0 || end < start)
    throw new Error(`README.md has no configuration table markers (${README_START} … ${README_END})`);
  return readme.slice(0, start) + renderReadmeTable() + readme.slice(end + README_END.length);
}
