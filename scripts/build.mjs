// npm run build (and npm install / npm ci through `prepare`, and the test set-up): compiles src/ into
// dist/ with tsc, then bundles the command's entry (dist/cli/main.js) into dist/main.js and its
// chunks (dist/chunks/), which is what bin/flightstatus.js, `npm start` and the deploy units run.
//
// Why a bundle: a process that loads the ~1,500 files of tsc's output and its dependencies spends
// most of its start resolving and reading them. Measured on a 2-core machine: a database command of
// the CLI took 0.57 s (0.75 s of CPU) from tsc's output and 0.34 s (0.40 s) from the bundle, a start
// and stop of the service 1.0 s (1.4 s) and 0.65 s (0.9 s); help and --version take 0.2 s (Node's own
// start is 0.13 s) because each command's code is a chunk loaded only when it runs: nothing the help
// path imports may import the app (test/cli.test.ts checks what dist/main.js reaches). docs/decisions.md has the reasons.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = (project) =>
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', project], { cwd: root, stdio: 'inherit' });

tsc('tsconfig.build.json');
// Declarations of the one module the package exports (flight-status-service/webhooks).
tsc('tsconfig.verify.json');

// Left to node_modules, loaded as they are: native addons, and packages that read files of their own
// folder at run time (pino's transports run its files in worker threads; pdfkit reads its font
// metrics; the swagger packages their package.json and the UI's assets).
const external = [
  /^better-sqlite3(-napi)?(\/|$)/,
  /^@napi-rs\/canvas(\/|$)/,
  /^pg-native(\/|$)/,
  /^pino(-[a-z-]+)?(\/|$)/,
  /^thread-stream(\/|$)/,
  /^pdfkit(\/|$)/,
  /^@fastify\/swagger(-ui)?(\/|$)/,
];

rmSync(new URL('../dist/chunks', import.meta.url), { recursive: true, force: true });
await build({
  cwd: root,
  input: { main: 'dist/cli/main.js' },
  platform: 'node',
  external,
  logLevel: 'warn',
  output: {
    dir: 'dist',
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: 'chunks/[name]-[hash].js',
    // Stack traces name the bundle's lines; `node --enable-source-maps` maps them back to dist/.
    sourcemap: true,
  },
});
