// The guides as a reader follows them: every relative link resolves inside the repository, and no
// shell line uses a variable that the same line's `export` is only now setting (the shell expands
// the whole line first, so it would be empty).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const GUIDES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f)),
];

/** The shell lines of a guide's fenced sh/bash blocks. */
function shellLines(text: string): string[] {
  return [...text.matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split('\n'));
}

/** A line's `export` that sets a variable and refers to it later on the same line. */
function sameLineExportUse(line: string): string | null {
  const exported = /^\s*export\s+(.*)$/.exec(line);
  if (!exported) return null;
  const names = [...exported[1]!.matchAll(/(?:^|\s)([A-Za-z_][A-Za-z0-9_]*)=/g)].map((m) => m[1]!);
  for (const name of names) {
    const after = exported[1]!.slice(exported[1]!.indexOf(`${name}=`) + name.length + 1);
    if (new RegExp(`\\$\\{?${name}\\b`).test(after)) return name;
  }
  return null;
}

describe('the guides', () => {
  it('link only to files that exist', () => {
    const broken: string[] = [];
    for (const guide of GUIDES) {
      const text = readFileSync(join(ROOT, guide), 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:|#)/.test(target!)) continue;
        const path = decodeURIComponent(target!.split('#')[0]!);
        if (!existsSync(join(ROOT, dirname(guide), path))) broken.push(`${guide}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('never use a variable on the line whose export sets it', () => {
    expect(sameLineExportUse('export A=$(openssl rand -hex 24) TOKEN=$A')).toBe('A');
    expect(sameLineExportUse('export A=1 B=2')).toBeNull();
    const found = GUIDES.flatMap((guide) =>
      shellLines(readFileSync(join(ROOT, guide), 'utf8'))
        .filter((line) => sameLineExportUse(line) !== null)
        .map((line) => `${guide}: ${line.trim()}`),
    );
    expect(found).toEqual([]);
  });
});
