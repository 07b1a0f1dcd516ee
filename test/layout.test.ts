// The module layout the architecture asks for, checked from the import statements of src/: no import
// cycle between capabilities (a cycle inside one folder, through type imports, is that folder's own
// business), and the simulated world is a provider that depends on nothing above providers/.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src', import.meta.url));
const IMPORT = /^(?:import|export)\s+(?:type\s+)?[^'";]*?from\s+'(\.[^']+)'/gm;

/** Every module of src/ (tests aside) and the modules it imports (type imports included). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter(
    (f) => f.endsWith('.ts') && !f.endsWith('.test.ts'),
  );
  for (const file of files) {
    const text = readFileSync(join(SRC, file), 'utf8');
    const targets = [...text.matchAll(IMPORT)].map((m) =>
      relative(SRC, resolve(SRC, dirname(file), m[1]!.replace(/\.js$/, '.ts'))),
    );
    graph.set(file, targets);
  }
  return graph;
}

/** Strongly connected components of more than one module (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

const folderOf = (file: string) => (file.includes(sep) ? file.split(sep)[0]! : '.');

describe('module layout', () => {
  const graph = importGraph();

  it('has no import cycle that crosses a folder', () => {
    const crossing = cycles(graph).filter((c) => new Set(c.map(folderOf)).size > 1);
    expect(crossing).toEqual([]);
  });

  it('has no two folders that import each other, in either direction, even through modules that make no cycle', () => {
    const edges = new Set<string>();
    for (const [file, targets] of graph)
      for (const t of targets)
        if (folderOf(file) !== folderOf(t) && folderOf(file) !== '.' && folderOf(t) !== '.')
          edges.add(`${folderOf(file)} -> ${folderOf(t)}`);
    const both = [...edges].filter((e) => {
      const [a, b] = e.split(' -> ');
      return a! < b! && edges.has(`${b} -> ${a}`);
    });
    expect(both).toEqual([]);
  });

  it("keeps configuration and the shared helpers at the bottom: config/ and the root's modules import no capability", () => {
    // A setting's parser lives with the setting (config/pkcs12.ts, config/parties.ts, …); capabilities
    // import config, never the other way. app.ts is the composition root, above everything (app-shape.ts
    // holds its types).
    const bottom = (file: string) =>
      folderOf(file) === 'config' || (folderOf(file) === '.' && !['app.ts', 'app-shape.ts'].includes(file));
    const upward = [...graph]
      .filter(([file]) => bottom(file))
      .flatMap(([file, targets]) => targets.filter((t) => !bottom(t)).map((t) => `${file} -> ${t}`));
    expect(upward).toEqual([]);
  });

  it('keeps the composition root a list of capabilities: app.ts under 300 lines, writing no job and registering no route of its own', () => {
    // Each capability hands over its routes, jobs, prune and stop (src/capability.ts); app.ts plugs
    // them in by role, so adding one touches one line of the list. 300 Prettier lines: the file that
    // built every service by hand was 525 once formatted (344 lines in the wide style before Prettier,
    // when this rule said 150).
    const app = readFileSync(join(SRC, 'app.ts'), 'utf8');
    expect(app.split('\n').length - 1).toBeLessThan(300);
    expect(
      app.match(/scheduler\.register\(\s*\{|\bhttp\.(?:get|post|put|patch|delete|route)\(|\b\w+Routes\(http\b/g) ?? [],
    ).toEqual([]);
  });

  it('points comments at what a reader can open: a docs section or a decision, never a bare "spec 4.1" or "issue 28"', () => {
    // A line that names its docs file is a pointer (`docs/decisions.md, "Issue 42, item 8"` is a heading there).
    const bare = (line: string) =>
      /^\s*(?:\/\/|\/?\*).*\b(?:spec|issue) \d/i.test(line) && !/docs\/[\w-]+\.md/.test(line);
    const pointing = [...graph.keys()].filter((file) => readFileSync(join(SRC, file), 'utf8').split('\n').some(bare));
    expect(pointing).toEqual([]);
  });

  it('finds a cycle when there is one (the check can fail)', () => {
    const made = new Map(graph);
    made.set('config.ts', [...(graph.get('config.ts') ?? []), join('db', 'index.ts')]);
    expect(cycles(made).some((c) => c.includes('config.ts') && c.includes(join('db', 'index.ts')))).toBe(true);
  });

  it('keeps the simulated world a provider: sim/ imports only clock.ts, lru.ts, providers/, weather/ and airports/', () => {
    // It implements the flight and the weather provider interfaces, and renders its weather as the reports weather/ reads;
    // clock.ts and lru.ts are leaves (the time's units, a bounded cache).
    const allowed = (target: string) =>
      ['clock.ts', 'lru.ts'].includes(target) || ['sim', 'providers', 'weather', 'airports'].includes(folderOf(target));
    const upward = [...graph]
      .filter(([file]) => folderOf(file) === 'sim')
      .flatMap(([file, targets]) => targets.filter((t) => !allowed(t)).map((t) => `${file} -> ${t}`));
    expect(upward).toEqual([]);
    // The operator's doors onto the world: its route with the other operator routes, its command with the other commands.
    expect(graph.has(join('admin', 'sim-routes.ts')) && graph.has(join('cli', 'sim.ts'))).toBe(true);
  });

  it("lets boards publish what they observed without knowing webhooks: the fan-out implements boards' BoardSubscribers", () => {
    const intoWebhooks = [...graph]
      .filter(([file]) => folderOf(file) === 'boards')
      .flatMap(([file, targets]) => targets.filter((t) => folderOf(t) === 'webhooks').map((t) => `${file} -> ${t}`));
    expect(intoWebhooks).toEqual([]);
    expect(graph.get(join('webhooks', 'fanout.ts'))).toContain(join('boards', 'index.ts'));
  });

  it('reads usage through metering: no other capability names the usage log or the refusals in its SQL, nor is handed the database to read them', () => {
    const readers = [...graph.keys()].filter(
      (file) =>
        !['metering', 'db'].includes(folderOf(file)) &&
        /usage_log|'refusals'|(?:FROM|INTO|UPDATE) refusals\b/i.test(readFileSync(join(SRC, file), 'utf8')),
    );
    expect(readers).toEqual([]);
    // metering/ exports no function that takes the database: its reads are MeteringService's methods.
    expect(readFileSync(join(SRC, 'metering', 'index.ts'), 'utf8')).not.toMatch(
      /usageByDay|lastUsedByKey|refusalsByDay|billableOverage|chargeOf/,
    );
  });

  it('keeps every source file under 350 lines, but for the simulated world and the schema declarations', () => {
    // One thing each, read top to bottom: the database's tables (db/schema.ts) and the simulated world's data.
    const exempt = (file: string) => folderOf(file) === 'sim' || file === join('db', 'schema.ts');
    const long = [...graph.keys()]
      .filter((file) => !exempt(file))
      .map((file) => [file, readFileSync(join(SRC, file), 'utf8').split('\n').length - 1] as const);
    expect(long.filter(([, lines]) => lines > 350)).toEqual([]);
  });

  it("keeps billing's SQL in its stores: the rules (drafts, charging, dunning, credit notes, notices, views) decide, the stores read and write", () => {
    const stores = new Set([
      join('billing', 'store.ts'),
      join('billing', 'details-store.ts'),
      join('billing', 'dialect.ts'),
    ]);
    const writers = [...graph.keys()].filter(
      (file) =>
        folderOf(file) === 'billing' &&
        !stores.has(file) &&
        /\.kysely\b|\.(?:selectFrom|insertInto|updateTable|deleteFrom|executeQuery)\(/.test(
          readFileSync(join(SRC, file), 'utf8'),
        ),
    );
    expect(writers).toEqual([]);
  });

  it('claims shared work only through leases/: no other statement locks rows to skip them (FOR UPDATE SKIP LOCKED)', () => {
    const code = (file: string) =>
      readFileSync(join(SRC, file), 'utf8')
        .split('\n')
        .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line))
        .join('\n');
    const claimers = [...graph.keys()].filter(
      (file) => folderOf(file) !== 'leases' && /SKIP\s+LOCKED/i.test(code(file)),
    );
    expect(claimers).toEqual([]);
  });

  it('tells the two databases apart only where it is opened and in forDialect: each capability keeps its dialects in files of their own', () => {
    const KIND = /\bkind === '(?:sqlite|postgres)'/;
    // webhooks/keyfile.ts and evidence/keyfile.ts: the rule of where the secrets' and the evidence
    // key may come from (no key file beside a PostgreSQL database), read from the configured target, not SQL.
    // config/database.ts: the pool size goes with a PostgreSQL target (SQLite has no pool), read the same way.
    const allowed = new Set([
      join('db', 'index.ts'),
      join('db', 'dialect.ts'),
      join('webhooks', 'keyfile.ts'),
      join('evidence', 'keyfile.ts'),
      join('config', 'database.ts'),
    ]);
    const branching = [...graph.keys()].filter(
      (file) => !allowed.has(file) && KIND.test(readFileSync(join(SRC, file), 'utf8')),
    );
    expect(branching).toEqual([]);
  });

  it("chooses between a capability's dialect files in one place: forDialect is called only in db/, an index.ts or a dialect.ts", () => {
    const chooser = (file: string) => folderOf(file) === 'db' || /(?:^|[/\\])(?:index|dialect)\.ts$/.test(file);
    const calling = [...graph.keys()].filter(
      (file) => !chooser(file) && /\bforDialect\b/.test(readFileSync(join(SRC, file), 'utf8')),
    );
    expect(calling).toEqual([]);
  });

  it('maps to HTTP only at the doors: ApiError is thrown by src/http/, route files and the Idempotency-Key hook, never by a service', () => {
    const door = (file: string) =>
      folderOf(file) === 'http' || /routes\.ts$/.test(file) || file === join('idempotency', 'index.ts');
    const throwing = [...graph]
      .filter(([file, targets]) => !door(file) && targets.includes(join('http', 'errors.ts')))
      .map(([file]) => file);
    expect(throwing).toEqual([]);
  });

  it('keeps the CLI in src/cli/: no other module reads the command line, and no command writes SQL of its own', () => {
    const readers = [...graph.keys()].filter(
      (file) => folderOf(file) !== 'cli' && readFileSync(join(SRC, file), 'utf8').includes('process.argv'),
    );
    expect(readers).toEqual([]);
    const sql = [...graph.keys()].filter(
      (file) =>
        folderOf(file) === 'cli' &&
        /\.(?:selectFrom|insertInto|updateTable|deleteFrom)\(|\bsql`/.test(readFileSync(join(SRC, file), 'utf8')),
    );
    expect(sql).toEqual([]);
  });

  it('reads the environment in src/config/ only (the CLI and pg read the few variables their own starts need)', () => {
    // cli/index.ts: LOG_LEVEL, to show a stack when the configuration itself could not be read;
    // cli/running-service.ts: whether DATABASE_URL was set at all (a note on stderr);
    // db/postgres.ts: PGUSER, libpq's own default user.
    const allowed = new Set([join('cli', 'index.ts'), join('cli', 'running-service.ts'), join('db', 'postgres.ts')]);
    const readers = [...graph.keys()].filter(
      (file) =>
        folderOf(file) !== 'config' &&
        !allowed.has(file) &&
        /process\.env\b/.test(readFileSync(join(SRC, file), 'utf8').replace(/^\s*\/\/.*$/gm, '')),
    );
    expect(readers).toEqual([]);
  });

  it("keeps the HTTP layer's errors out of the flight lookup, which answers with values", () => {
    expect(graph.get(join('flights', 'lookup.ts'))).not.toContain(join('http', 'errors.ts'));
  });
});
