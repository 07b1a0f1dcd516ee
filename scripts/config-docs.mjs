// Rewrites the README's configuration table and .env.example from the configuration schema
// (src/config/, one file per capability). Run through `npm run config:docs`, which builds dist/
// first: the schema is TypeScript, and Node 20 does not run that itself.
import { readFileSync, writeFileSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const { renderEnvExample, replaceReadmeTable } = await import(new URL('dist/config/docs.js', root).href);

const readmePath = new URL('README.md', root);
const envPath = new URL('.env.example', root);
const readme = readFileSync(readmePath, 'utf8');
const nextReadme = replaceReadmeTable(readme);
const env = readFileSync(envPath, 'utf8');
const nextEnv = renderEnvExample();
for (const [path, before, after] of [
  [readmePath, readme, nextReadme],
  [envPath, env, nextEnv],
]) {
  if (before === after) {
    console.log(`${path.pathname.slice(root.pathname.length)}: unchanged`);
  } else {
    writeFileSync(path, after);
    console.log(`${path.pathname.slice(root.pathname.length)}: rewritten`);
  }
}
