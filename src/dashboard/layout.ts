// The frame of every page: one stylesheet, one deferred script (and a page's own, when it has one), a skip link, a header with the
// navigation (the current page marked for screen readers) and a sign-out button, then the page.
import { ASSETS } from './assets.js';
import { mayOpen } from './roles.js';
import { html, type Html, type Interpolated } from '../html.js';
import type { SignedInUser } from '../users/index.js';

export type Section = 'overview' | 'keys' | 'webhooks' | 'lookup' | 'batches' | 'watches' | 'billing' | null;

export interface Frame {
  title: string;
  /** The signed-in user (the header then shows the navigation), or null on sign-in pages. */
  user: SignedInUser | null;
  accountName?: string;
  section?: Section;
  csrf: string;
  /** Scripts of ASSETS this page loads besides dashboard.js (deferred, like it). */
  scripts?: readonly string[];
}

const NAV: { section: Exclude<Section, null>; href: string; label: string }[] = [
  { section: 'overview', href: '/dashboard', label: 'Overview' },
  { section: 'keys', href: '/dashboard/keys', label: 'API keys' },
  { section: 'webhooks', href: '/dashboard/webhooks', label: 'Webhooks' },
  { section: 'lookup', href: '/dashboard/lookup', label: 'Look up a flight' },
  { section: 'batches', href: '/dashboard/batches', label: 'Batches' },
  { section: 'watches', href: '/dashboard/watches', label: 'Watches' },
  { section: 'billing', href: '/dashboard/billing', label: 'Billing' },
];

export function page(frame: Frame, body: Html): string {
  const css = ASSETS['dashboard.css']!;
  const js = ASSETS['dashboard.js']!;
  const header = frame.user
    ? html`<header class="top">
        <a class="brand" href="/dashboard"><img src="/dashboard/assets/logo.svg" alt="" width="24" height="24"> Flight Status</a>
        <nav aria-label="Dashboard"><ul>${NAV.filter((item) => mayOpen(item.href, frame.user!.role)).map(
          (item) =>
            html`<li><a href="${item.href}"${item.section === frame.section ? html` aria-current="page"` : ''}>${item.label}</a></li>`,
        )}</ul></nav>
        <form method="post" action="/dashboard/sign-out">
          <input type="hidden" name="_csrf" value="${frame.csrf}">
          <span class="hint">${frame.accountName ?? ''} · <a href="/dashboard/account">${frame.user.email}</a></span>
          <button class="secondary" type="submit">Sign out</button>
        </form>
      </header>`
    : html`<header class="top"><a class="brand" href="/dashboard"><img src="/dashboard/assets/logo.svg" alt="" width="24" height="24"> Flight Status</a></header>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${frame.title} · Flight Status</title>
<link rel="icon" href="/favicon.ico" sizes="48x48">
<link rel="icon" href="/dashboard/assets/logo.svg?v=${ASSETS['logo.svg']!.etag.slice(1, 9)}" type="image/svg+xml">
<link rel="stylesheet" href="/dashboard/assets/dashboard.css?v=${css.etag.slice(1, 9)}">
<script defer src="/dashboard/assets/dashboard.js?v=${js.etag.slice(1, 9)}"></script>
${(frame.scripts ?? []).map((name) => html`<script defer src="/dashboard/assets/${name}?v=${ASSETS[name]!.etag.slice(1, 9)}"></script>\n`)}
</head>
<body>
<a class="visually-hidden" href="#main">Skip to content</a>
${header}
<main id="main">
${body}
</main>
</body>
</html>`.text;
}

/** A labelled field with its hint and its error (tied to it for screen readers), keeping what was typed. */
export function field(options: {
  name: string;
  label: string;
  type?: string;
  value?: string;
  error?: string | null;
  hint?: Interpolated;
  autocomplete?: string;
  required?: boolean;
  extra?: Html;
}): Html {
  const id = `f-${options.name}`;
  const described = [options.hint ? `${id}-hint` : '', options.error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return html`<label for="${id}">${options.label}</label>
    ${options.hint ? html`<p class="hint" id="${id}-hint">${options.hint}</p>` : ''}
    ${options.error ? html`<p class="error" id="${id}-error">${options.error}</p>` : ''}
    <input id="${id}" name="${options.name}" type="${options.type ?? 'text'}"${options.value !== undefined && options.type !== 'password' ? html` value="${options.value}"` : ''}${
      options.autocomplete ? html` autocomplete="${options.autocomplete}"` : ''
    }${options.required === false ? '' : html` required`}${options.error ? html` aria-invalid="true"` : ''}${described ? html` aria-describedby="${described}"` : ''}${options.extra ?? ''}>`;
}

/** An instant as "2026-03-01 12:00 UTC" (with `seconds`, "12:00:00"), machine-readable too; `none` when there is none. */
export function timeTag(iso: string | null | undefined, o: { seconds?: boolean; none?: string } = {}): Html | string {
  if (!iso) return o.none ?? '—';
  return html`<time datetime="${iso}">${iso.slice(0, o.seconds ? 19 : 16).replace('T', ' ')} UTC</time>`;
}

export const csrfInput = (csrf: string): Html => html`<input type="hidden" name="_csrf" value="${csrf}">`;

export function notice(kind: 'ok' | 'bad' | 'info', message: Interpolated): Html {
  return html`<div class="notice ${kind === 'info' ? '' : kind}" role="${kind === 'bad' ? 'alert' : 'status'}">${message}</div>`;
}
