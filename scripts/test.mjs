#!/usr/bin/env node
// `npm test`: the type check (`tsc --noEmit`) and the tests (`vitest run`, with any arguments given)
// at once, failing when either fails. The suite keeps both cores busy most of the time, not all of
// it (its start, the last slow files); the type check's ~25 s of one core fills those gaps instead of
// coming first. The tests print as they run; the type check's findings are printed after them.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = (path) => fileURLToPath(new URL(`../node_modules/${path}`, import.meta.url));

function run(script, args, output) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin(script), ...args], {
      cwd: root,
      stdio: output ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    });
    if (output) {
      child.stdout.on('data', (chunk) => output.push(chunk));
      child.stderr.on('data', (chunk) => output.push(chunk));
    }
    child.on('error', (error) => {
      console.error(error);
      resolve(1);
    });
    child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const typeCheck = [];
const [typed, tested] = await Promise.all([
  run('typescript/bin/tsc', ['--noEmit'], typeCheck),
  run('vitest/vitest.mjs', ['run', ...process.argv.slice(2)], null),
]);
if (typed !== 0) {
  process.stderr.write(Buffer.concat(typeCheck));
  console.error('npm test: the type check (tsc --noEmit) failed');
}
process.exit(typed !== 0 ? typed : tested);
