// The start-up warning about links in mails: given when mail is on and FLIGHTSTATUS_PUBLIC_URL is not
// set (links would point at this machine), never when it is set, whatever it names (a trial on
// http://localhost:3000 is set on purpose).
import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';
import { startTestApp } from './helpers/app.js';
import { startSmtpServer, type MailSink } from './helpers/smtp.js';

let sink: MailSink;
beforeAll(async () => {
  sink = await startSmtpServer();
});
afterAll(async () => {
  await sink?.close();
});

async function warningsAtStart(publicUrl: string | undefined): Promise<string[]> {
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const t = await startTestApp('sqlite', {
    mail: sink.config,
    logger: createLogger('warn', stream),
    ...(publicUrl === undefined ? {} : { publicUrl }),
  });
  await t.close();
  return logs.map((line) => (JSON.parse(line) as { msg: string }).msg).filter((msg) => msg.includes('PUBLIC_URL'));
}

it('warns that links point at this machine only when FLIGHTSTATUS_PUBLIC_URL is not set', async () => {
  expect(await warningsAtStart(undefined)).toEqual([
    'mail is on but FLIGHTSTATUS_PUBLIC_URL is not set: links in mails point at this machine; set it to where customers reach the service',
  ]);
  expect(await warningsAtStart('http://localhost:3000')).toEqual([]);
  expect(await warningsAtStart('https://flightstatus.example')).toEqual([]);
});
