// A real SMTP server on a local port (smtp-server, the SMTP server of the nodemailer project) that
// keeps what it receives, parsed by mailparser: tests read the mails the service sent as a mail
// client would. It can refuse the next few mails with a temporary error, like a server in trouble.
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { MailConfig } from '../../src/config.js';

export const SMTP_USER = 'mailer';
export const SMTP_PASSWORD = 'smtp-secret-0123';

export interface MailSink {
  port: number;
  /** The service's settings for this server. */
  config: MailConfig;
  received: ParsedMail[];
  /** The raw envelopes: who each mail was sent to. */
  envelopes: string[][];
  /** Refuses the next `count` mails with 451 (try again later). */
  refuseNext(count: number): void;
  close(): Promise<void>;
}

export async function startSmtpServer(port = 0): Promise<MailSink> {
  const received: ParsedMail[] = [];
  const envelopes: string[][] = [];
  let refusals = 0;
  const server = new SMTPServer({
    // Plain SMTP on loopback: no STARTTLS to offer a self-signed certificate, AUTH allowed without it.
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD)
        return callback(null, { user: auth.username });
      return callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (refusals > 0) {
          refusals--;
          return callback(Object.assign(new Error('Mailbox busy, try again later'), { responseCode: 451 }));
        }
        envelopes.push(session.envelope.rcptTo.map((r) => r.address));
        simpleParser(Buffer.concat(chunks)).then(
          (mail) => {
            received.push(mail);
            callback();
          },
          (error: Error) => callback(error),
        );
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const actual = (server.server.address() as AddressInfo).port;
  return {
    port: actual,
    config: {
      smtpUrl: `smtp://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${actual}`,
      from: 'Flight Status <billing@flightstatus.test>',
    },
    received,
    envelopes,
    refuseNext: (count) => void (refusals = count),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
