// The README's code map, written from the code: each folder of src/ described by the header comment
// of its index.ts (config/ by config.ts's), each module at the root by its own header, the first
// sentence of each. `npm run docs:code-map` rewrites the README between its markers;
// test/code-map.test.ts fails when the README and the headers disagree.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const MAP_START =
  "<!-- code-map:start: written by `npm run docs:code-map` from the header comment of each folder's index.ts -->";
export const MAP_END = '<!-- code-map:end -->';
const WIDTH = 104;
const INDENT = 17;

/** The comment lines a file opens with, joined; '' when it opens with code. */
export function headerOf(text) {
  const lines = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('//')) break;
    lines.push(line.replace(/^\/\/ ?/, ''));
  }
  return lines.join(' ').replace(/\s+/g, ' ').trim();
}

/** The header's first sentence: up to the first full stop followed by a space and a capital, or the end. */
export function firstSentence(header) {
  const match = /^(.*?[.!?])(?:\s+(?=[A-Z`])|$)/.exec(header);
  return (match ? match[1] : header).trim();
}

function wrap(label, text) {
  const words = text.split(' ');
  const lines = [];
  let line = `  ${label.padEnd(INDENT - 2)}`;
  let empty = true;
  for (const word of words) {
    if (!empty && line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = ' '.repeat(INDENT);
      empty = true;
    }
    line += (empty ? '' : ' ') + word;
    empty = false;
  }
  lines.push(line);
  return lines.join('\n');
}

/** Each folder and root module of `src` with its description; folders and modules without a header are listed as missing. */
export function describeSource(src) {
  const entries = [];
  const missing = [];
  for (const name of readdirSync(src).sort()) {
    const path = `${src}/${name}`;
    if (statSync(path).isDirectory()) {
      const face = name === 'config' ? `${src}/config.ts` : `${path}/index.ts`;
      let header = '';
      try {
        header = headerOf(readFileSync(face, 'utf8'));
      } catch {
        // no index.ts: listed as missing below
      }
      if (!header) missing.push(`src/${name}/`);
      else entries.push([`${name}/`, firstSentence(header)]);
    } else if (name.endsWith('.ts') && !name.endsWith('.test.ts') && name !== 'config.ts') {
      const header = headerOf(readFileSync(path, 'utf8'));
      if (!header) missing.push(`src/${name}`);
      else entries.push([name, firstSentence(header)]);
    }
  }
  return { entries, missing };
}

export function renderCodeMap(src) {
  const { entries } = describeSource(src);
  const folders = entries.filter(([name]) => name.endsWith('/'));
  const modules = entries.filter(([name]) => !name.endsWith('/'));
  return [
    '```',
    'src/',
    ...folders.map(([name, text]) => wrap(name, text)),
    ...modules.map(([name, text]) => wrap(name, text)),
    '```',
  ].join('\n');
}

/** The README with its code map replaced by `map`. */
export function replaceCodeMap(readme, map) {
  const start = readme.indexOf(MAP_START);
  const end = readme.indexOf(MAP_END);
  if (start < 0 || end < start) throw new Error(`README.md lacks the code map's markers (${MAP_START} … ${MAP_END})`);
  return `${readme.slice(0, start + MAP_START.length)}\n${map}\n${readme.slice(end)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('../', import.meta.url));
  const { missing } = describeSource(`${root}src`);
  if (missing.length > 0) {
    console.error(`no header comment to describe: ${missing.join(', ')}`);
    process.exit(1);
  }
  const readmePath = `${root}README.md`;
  const readme = readFileSync(readmePath, 'utf8');
  const next = replaceCodeMap(readme, renderCodeMap(`${root}src`));
  if (next === readme) console.log('README.md: code map unchanged');
  else {
    writeFileSync(readmePath, next);
    console.log('README.md: code map rewritten');
  }
}
