// The package version, read once from the package.json above this module: one folder up from src/
// and dist/, two from the bundle's chunks (dist/chunks/).
import { existsSync, readFileSync } from 'node:fs';

function packageJsonAbove(from: URL): URL {
  for (let dir = new URL('.', from); ; dir = new URL('..', dir)) {
    const file = new URL('package.json', dir);
    if (existsSync(file)) return file;
    if (dir.pathname === '/') throw new Error(`no package.json above ${from.pathname}`);
  }
}

export const VERSION: string = (
  JSON.parse(readFileSync(packageJsonAbove(new URL(import.meta.url)), 'utf8')) as { version: string }
).version;
