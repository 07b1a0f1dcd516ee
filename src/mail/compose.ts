// One look for every mail: a heading, paragraphs, an optional table of facts and an optional button,
// then the footer (why the mail came, and where the law asks for one an unsubscribe link). Each mail
// has a plain-text part and an HTML part that say the same; the HTML is inline-styled, as mail
// clients drop style sheets, in the dashboard's colours.
import { iso } from '../clock.js';

export interface Content {
  subject: string;
  heading: string;
  paragraphs: string[];
  facts?: [string, string][];
  action?: { label: string; url: string };
  /** Why this address gets the mail (the footer's first line). */
  reason: string;
}

export interface Composed {
  subject: string;
  text: string;
  html: string;
}

/** A day and a minute as mails write them, in UTC. */
export const day = (ms: number) => iso(ms).slice(0, 10);
export const time = (ms: number) => `${iso(ms).slice(0, 16).replace('T', ' ')} UTC`;

const ACCENT = '#0b57d0';
const MUTED = '#4b5563';

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

// What a mail client could make a link of: a URL (with a scheme, or a scheme-like prefix), an email
// address, a domain name (example.com, www.example.com, with any dot a client reads as one), an IPv4
// address; each with whatever follows it up to the next space.
const LINKLIKE = new RegExp(
  [
    String.raw`[\p{L}\p{N}+.-]*:\/\/\S*`,
    String.raw`\b(?:mailto|tel|sms|callto|javascript|data|file|ftp|news|skype|whatsapp)\s*:\S*`,
    String.raw`[^\s@]*@\S*`,
    String.raw`(?:[\p{L}\p{N}_-]+[.\u3002\uFF0E\uFF61])+\p{L}[\p{L}\p{N}-]+\S*`,
    String.raw`\d{1,3}(?:\.\d{1,3}){3}\S*`,
  ].join('|'),
  'giu',
);

/**
 * Text a tenant chose (an account's or a webhook endpoint's name) as a mail body shows it: in quotes,
 * on one line, at most `max` characters, with anything a mail client could turn into a link replaced
 * by "[link removed]", so that a mail of ours never carries a link or an address a tenant chose
 * (docs/mail.md, "Text a tenant chose"). Subjects carry none at all.
 */
export function quoted(text: string, max = 80): string {
  const safe = withoutLinks(text);
  const chars = [...safe];
  return `“${
    chars.length > max
      ? `${chars
          .slice(0, max - 1)
          .join('')
          .trimEnd()}…`
      : safe
  }”`;
}

/** The same without the quotes and the bound: text a tenant's server answered (a webhook receiver's error). */
export function withoutLinks(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\s]+/gu, ' ')
    .trim()
    .replace(LINKLIKE, '[link removed]');
}

/** The mail's two parts; `unsubscribe` is the link of a notice (none on invoices, payments and security mails). */
export function compose(content: Content, unsubscribe: string | null): Composed {
  const width = Math.max(0, ...(content.facts ?? []).map(([label]) => label.length));
  const text = [
    content.heading,
    '',
    ...content.paragraphs.flatMap((p) => [p, '']),
    ...(content.facts?.length
      ? [...content.facts.map(([label, value]) => `${`${label}:`.padEnd(width + 2)}${value}`), '']
      : []),
    ...(content.action ? [`${content.action.label}: ${content.action.url}`, ''] : []),
    '--',
    'Flight Status Service',
    content.reason,
    ...(unsubscribe ? [`Stop these notices: ${unsubscribe}`] : []),
  ].join('\n');

  const facts = content.facts?.length
    ? `<table role="presentation" style="border-collapse:collapse;margin:16px 0">${content.facts
        .map(
          ([label, value]) =>
            `<tr><td style="padding:4px 16px 4px 0;color:${MUTED}">${escapeHtml(label)}</td><td style="padding:4px 0">${escapeHtml(value)}</td></tr>`,
        )
        .join('')}</table>`
    : '';
  const action = content.action
    ? `<p style="margin:24px 0"><a href="${escapeHtml(content.action.url)}" style="background:${ACCENT};color:#fff;padding:10px 18px;border-radius:4px;text-decoration:none;display:inline-block">${escapeHtml(content.action.label)}</a></p>`
    : '';
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(content.subject)}</title></head>
<body style="margin:0;padding:0;background:#f5f7fa;font:16px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1b1f24">
<div style="max-width:600px;margin:0 auto;padding:24px">
<p style="font-weight:700;margin:0 0 16px">Flight Status</p>
<div style="background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:24px">
<h1 style="font-size:20px;margin:0 0 16px">${escapeHtml(content.heading)}</h1>
${content.paragraphs.map((p) => `<p style="margin:0 0 12px">${escapeHtml(p)}</p>`).join('\n')}
${facts}${action}
</div>
<p style="color:${MUTED};font-size:13px;margin:16px 0 0">${escapeHtml(content.reason)}${
    unsubscribe ? ` <a href="${escapeHtml(unsubscribe)}" style="color:${MUTED}">Stop these notices</a>.` : ''
  }</p>
</div>
</body></html>`;
  return { subject: content.subject, text, html };
}
