// prepack (npm pack, in this folder or as `npm pack clients/node` from the repository's root):
// compiles the package into dist/ with the repository's TypeScript (the root's devDependency, found
// by walking up from here as Node resolves any package). Two passes, because the receiver helper is
// not copied here: pass 1 compiles the service's own src/webhooks/verify.ts into dist/verify.js, pass
// 2 compiles src/ against its declarations.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('..', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compile = (project) => execFileSync(process.execPath, [tsc, '-p', project], { cwd: here, stdio: 'inherit' });

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
compile('tsconfig.webhooks.json');
compile('tsconfig.json');
