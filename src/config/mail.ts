// Email (docs/mail.md): the SMTP server mails go through and the address they come from. Unset, the
// service sends no mail and the dashboard says so where it matters (a forgotten password).
import { Type } from 'typebox';
import { capability, custom, invalid } from './setting.js';

export interface MailConfig {
  /** smtp://user:password@host:port or smtps://…; the credentials never reach a log. */
  smtpUrl: string;
  /** The From header: `billing@example.com` or `Example Billing <billing@example.com>`. */
  from: string;
}

const ADDRESS = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;

/** `a@b.c` or `Name <a@b.c>`. */
export function parseMailFrom(text: string): string | null {
  if (ADDRESS.test(text)) return text;
  const named = /^([^<>\r\n]{1,100}?)\s*<([^<>\s]+)>$/.exec(text);
  return named && ADDRESS.test(named[2]!) ? text : null;
}

export const mail = capability({
  title: 'Email (docs/mail.md)',
  settings: {
    FLIGHTSTATUS_SMTP_URL: custom({
      default: '',
      schema: Type.Union([Type.String({ pattern: '^smtps?://' }), Type.Null()]),
      // The URL holds the password: the message never repeats it.
      parse: (text) => {
        if (text === '') return null;
        let url: URL;
        try {
          url = new URL(text);
        } catch {
          return invalid(
            'FLIGHTSTATUS_SMTP_URL must be a URL like smtp://user:password@mail.example.com:587 or smtps://…:465',
          );
        }
        if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:')
          return invalid(`FLIGHTSTATUS_SMTP_URL must start with smtp:// or smtps:// (got ${url.protocol}//…)`);
        if (url.hostname === '') return invalid('FLIGHTSTATUS_SMTP_URL must name the mail server host');
        return text;
      },
      doc: 'the SMTP server mails are sent through: `smtp://user:password@host:587` (STARTTLS when offered) or `smtps://…:465` (TLS); empty: no mail is sent; never logged',
      comment:
        'Email: the SMTP server (smtp:// upgrades with STARTTLS when the server offers it, smtps:// is TLS ' +
        'from the start; the credentials go in the URL, percent-encoded) and the From address. Empty: the ' +
        'service sends no mail (no invoices by mail, no password reset). Mails are queued in the database ' +
        'and sent by the worker, with retries.',
    }),
    FLIGHTSTATUS_MAIL_FROM: custom({
      default: '',
      schema: Type.String(),
      parse: (text) =>
        text === '' || parseMailFrom(text) !== null
          ? text
          : invalid(
              `FLIGHTSTATUS_MAIL_FROM must be an address, or a name and an address: "Flight Status <billing@example.com>" (got "${text.slice(0, 60)}")`,
            ),
      doc: 'the From of every mail: `billing@example.com` or `Flight Status <billing@example.com>`; required with `FLIGHTSTATUS_SMTP_URL`',
    }),
  },
  check({ text: given, problem }) {
    if (given.FLIGHTSTATUS_SMTP_URL !== '' && given.FLIGHTSTATUS_MAIL_FROM === '')
      problem('FLIGHTSTATUS_SMTP_URL needs FLIGHTSTATUS_MAIL_FROM (the address mails come from)');
    if (given.FLIGHTSTATUS_SMTP_URL === '' && given.FLIGHTSTATUS_MAIL_FROM !== '')
      problem('FLIGHTSTATUS_MAIL_FROM is set but FLIGHTSTATUS_SMTP_URL is not: set the SMTP server to send mail');
  },
  build: (v): { mail: MailConfig | null } => ({
    mail:
      v.FLIGHTSTATUS_SMTP_URL === null ? null : { smtpUrl: v.FLIGHTSTATUS_SMTP_URL, from: v.FLIGHTSTATUS_MAIL_FROM },
  }),
});
