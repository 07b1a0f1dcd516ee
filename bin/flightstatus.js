#!/usr/bin/env node
// The `flightstatus` command: serve, migrate, accounts, keys. Built from src/main.ts by `npm run build`
// (run automatically by `npm install` through the `prepare` script).
import('../dist/main.js').catch((error) => {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND') {
    process.stderr.write('flightstatus: dist/ is missing; run `npm run build` first\n');
  } else {
    process.stderr.write(`flightstatus: ${error && error.message ? error.message : error}\n`);
  }
  process.exit(1);
});
