#!/usr/bin/env node
// The `flightstatus` command (and `npm start`, which runs `flightstatus serve`): built from
// src/cli/main.ts into dist/main.js (a bundle, scripts/build.mjs) by `npm run build`, which
// `npm install` and `npm ci` run through the `prepare` script. Starting never compiles: a process
// manager runs `node dist/main.js serve`.
import { existsSync } from 'node:fs';

const main = new URL('../dist/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write('flightstatus: dist/ is missing; run `npm run build` first (npm install does it)\n');
  process.exit(1);
}
await import(main.href);
