// `flightstatus batch` against a real service process, as a claims handler runs it: submit a CSV
// with --wait (not a terminal, so a line per 10 %), the results CSV written, then status and results.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { createSimWorld, groundTruth } from '../src/sim/index.js';
import { CSV_COLUMNS } from '../src/batches/index.js';
import { createTestDatabase } from './helpers/databases.js';
import { runCli, scratchDir, startService } from './helpers/process.js';

const DATE = '2026-02-20';

it('submits a CSV with --wait, shows progress and writes the results; status and results read it again', async () => {
  const database = await createTestDatabase('sqlite', { migrated: true });
  const env = {
    DATABASE_URL: database.url,
    FLIGHTSTATUS_CLOCK: 'manual',
    FLIGHTSTATUS_CLOCK_START: '2026-03-01T12:00:00Z',
    LOG_LEVEL: 'warn',
  };
  const service = await startService(env);
  try {
    await runCli(['accounts', 'create', '--slug', 'claims', '--included', '1000'], env);
    const key = JSON.parse((await runCli(['keys', 'create', '--account', 'claims', '--name', 'k'], env)).stdout).data
      .key as string;
    const day = groundTruth(createSimWorld('flightstatus'), DATE)
      .filter((f) => f.operation === 'passenger' && f.status === 'cancelled')
      .slice(0, 30);
    const dir = scratchDir();
    const file = join(dir, 'claims.csv');
    // Saved by Excel on Windows: Windows-1252 (the first reference names Mr Müller), sent as it is.
    const text = `flightNumber,flightDate,origin,reference\n${day.map((f, i) => `${f.flightNumber},${DATE},${f.origin},C-${i + 1}${i === 0 ? ' Müller' : ''}`).join('\n')}\n`;
    writeFileSync(file, Buffer.from(text, 'latin1'));
    const out = join(dir, 'results.csv');

    const submitted = await runCli(
      ['batch', 'submit', file, '--wait', '--out', out, '--key', key, '--url', service.url],
      env,
      dir,
      60_000,
    );
    expect(submitted.code, submitted.stderr).toBe(0);
    const lines = submitted.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^batch bat_\w+: 30 rows, 30 lookups$/);
    expect(lines.filter((l) => /^batch bat_\w+: \d+% \(\d+ of 30 rows\)$/.test(l)).length).toBeGreaterThanOrEqual(1);
    expect(lines.some((l) => /: 100% \(30 of 30 rows\)$/.test(l))).toBe(true);
    expect(lines.at(-1)).toBe(`results written to ${out}`);
    const batch = JSON.parse(submitted.stdout).data;
    expect(batch).toMatchObject({ state: 'done', rows: 30, credits: 30 });
    expect(batch.counts.byOutcome.cancelled).toBe(30);

    const csv = readFileSync(out, 'utf8').trimEnd().split('\r\n');
    expect(csv[0]).toBe(CSV_COLUMNS.join(','));
    expect(csv).toHaveLength(31);
    expect(csv[1]).toMatch(new RegExp(`^1,C-1 Müller,${day[0]!.flightNumber},${DATE},${day[0]!.origin},`));
    expect(csv.slice(1).every((line) => line.split(',')[7] === 'cancelled')).toBe(true);

    const status = await runCli(['batch', 'status', batch.id, '--key', key, '--url', service.url], env, dir);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout).data.id).toBe(batch.id);
    const again = await runCli(
      ['batch', 'results', batch.id, '--only', 'disrupted', '--key', key, '--url', service.url],
      env,
      dir,
    );
    expect(again.code).toBe(0);
    expect(again.stdout.trimEnd().split('\r\n')).toEqual(csv);
    // The owed rows whose amount is not at risk, by the columns the full CSV gives them.
    const owedSafe = await runCli(
      ['batch', 'results', batch.id, '--only', 'owed_not_at_risk', '--key', key, '--url', service.url],
      env,
      dir,
    );
    expect(owedSafe.code, owedSafe.stderr).toBe(0);
    const cell = (line: string, name: (typeof CSV_COLUMNS)[number]) => line.split(',')[CSV_COLUMNS.indexOf(name)];
    const expected = [
      csv[0],
      ...csv
        .slice(1)
        .filter((line) => cell(line, 'compensationOwed') === 'true' && cell(line, 'amountAtRisk') === 'false'),
    ];
    // Owed rows whose risk is shown or not known are left out (a service that watched no boards has no not_indicated rows).
    expect(csv.slice(1).filter((line) => cell(line, 'compensationOwed') === 'true').length).toBeGreaterThan(
      expected.length - 1,
    );
    expect(owedSafe.stdout.trimEnd().split('\r\n')).toEqual(expected);
    const badFilter = await runCli(
      ['batch', 'results', batch.id, '--only', 'at_risk', '--key', key, '--url', service.url],
      env,
      dir,
    );
    expect(badFilter.code).toBe(2);
    expect(badFilter.stderr).toMatch(/--only must be disrupted, owed or owed_not_at_risk/);

    // --local-dates: a flight leaving Spain (UTC+1) at 23:xx UTC, asked by the next day, as its boarding pass prints it.
    const late = groundTruth(createSimWorld('flightstatus'), DATE).find(
      (f) =>
        ['AGP', 'ALC', 'BCN', 'MAD', 'VLC'].includes(f.origin) &&
        f.operation === 'passenger' &&
        f.scheduledDeparture.slice(11, 13) === '23',
    )!;
    const localFile = join(dir, 'local.csv');
    writeFileSync(localFile, `flightNumber,flightDate,reference\n${late.flightNumber},2026-02-21,L-1\n`);
    const localOut = join(dir, 'local-results.csv');
    const byLocal = await runCli(
      ['batch', 'submit', localFile, '--local-dates', '--wait', '--out', localOut, '--key', key, '--url', service.url],
      env,
      dir,
      60_000,
    );
    expect(byLocal.code, byLocal.stderr).toBe(0);
    const [head, row] = readFileSync(localOut, 'utf8').trimEnd().split('\r\n');
    const value = (name: string) => row!.split(',')[head!.split(',').indexOf(name)];
    expect([value('dateBasis'), value('flightDate'), value('scheduledDeparture')]).toEqual([
      'local',
      '2026-02-21',
      late.scheduledDeparture,
    ]);
    expect(value('scheduledDepartureLocal')).toMatch(/^2026-02-21T00:\d\d:00\+01:00$/);

    const wrongKey = await runCli(['batch', 'status', batch.id, '--key', 'flt_nope', '--url', service.url], env, dir);
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr.trimEnd()).toBe('flightstatus: Invalid API key');
    const missing = await runCli(
      ['batch', 'submit', join(dir, 'nope.csv'), '--key', key, '--url', service.url],
      env,
      dir,
    );
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/cannot read .*nope\.csv: ENOENT/);
    // A file with an invalid row is refused whole; the way to run the rest is this command's flag, not the API's query.
    const badFile = join(dir, 'bad.csv');
    writeFileSync(badFile, `flightNumber,flightDate\n${day[0]!.flightNumber},${DATE}\nnot a flight,${DATE}\n`);
    const refused = await runCli(['batch', 'submit', badFile, '--key', key, '--url', service.url], env, dir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /1 of 2 rows are invalid and nothing was queued \(run again with --skip-invalid to run/,
    );
    expect(refused.stderr).not.toMatch(/skipInvalid/);
    const skipped = await runCli(
      ['batch', 'submit', badFile, '--skip-invalid', '--key', key, '--url', service.url],
      env,
      dir,
    );
    expect(skipped.code, skipped.stderr).toBe(0);
    expect(JSON.parse(skipped.stdout).data).toMatchObject({ rows: 2, lookups: 1 });
    const noKey = await runCli(['batch', 'status', batch.id, '--url', service.url], env, dir);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/--key is required/);
  } finally {
    await service.stop('SIGKILL');
    await database.drop();
  }
}, 90_000);
