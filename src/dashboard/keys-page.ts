// API keys: create with a name (the plaintext shown once, with a copy button), list with prefix,
// created and last-used times, disable and enable, delete.
import type { KeyView } from '../accounts/index.js';
import { html, type Html } from '../html.js';
import { csrfInput, field, notice, timeTag } from './layout.js';

export interface KeyRowView extends KeyView {
  lastUsedAt: string | null;
}

export function keysPage(o: {
  csrf: string;
  baseUrl: string;
  keys: KeyRowView[];
  created?: { name: string; key: string };
  name?: string;
  error?: string | null;
  done?: Html;
}): Html {
  return html`<h1>API keys</h1>
    ${o.done ?? ''}
    ${
      o.created
        ? html`<section class="notice ok" aria-labelledby="new-key-heading">
            <h2 id="new-key-heading">Your new key “${o.created.name}”</h2>
            <p>Copy it now: it is shown this once and cannot be shown again.</p>
            <code class="secret" id="new-key">${o.created.key}</code>
            <div class="actions"><button type="button" class="secondary" data-copy="new-key">Copy key</button><span id="new-key-status" role="status"></span></div>
            <p class="hint">Send it as <code>Authorization: Bearer &lt;key&gt;</code>, for example:<br>
            <code>curl -H "Authorization: Bearer ${o.created.key}" "${o.baseUrl}/api/v1/account"</code></p>
          </section>`
        : ''
    }
    <h2>Create a key</h2>
    <form method="post" action="/dashboard/keys" novalidate>
      ${csrfInput(o.csrf)}
      ${field({ name: 'name', label: 'Key name', value: o.name ?? '', error: o.error, hint: 'What uses it, e.g. “claims backend (production)”.' })}
      <p><button type="submit">Create key</button></p>
    </form>
    <h2>Your keys</h2>
    ${
      o.keys.length === 0
        ? html`<p>No keys yet.</p>`
        : html`<table>
            <thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">State</th><th scope="col">Actions</th></tr></thead>
            <tbody>${o.keys.map((k) => keyRow(k, o.csrf))}</tbody>
          </table>`
    }`;
}

function keyRow(k: KeyRowView, csrf: string): Html {
  const toggle = k.disabled ? 'enable' : 'disable';
  return html`<tr>
    <td>${k.name}</td>
    <td><code>${k.keyPrefix}…</code></td>
    <td>${timeTag(k.createdAt)}</td>
    <td>${timeTag(k.lastUsedAt, { none: 'never' })}</td>
    <td>${k.disabled ? html`<span class="badge bad">disabled</span>` : html`<span class="badge ok">enabled</span>`}</td>
    <td class="actions">
      <form class="inline" method="post" action="/dashboard/keys/${k.keyId}/${toggle}">${csrfInput(csrf)}<button class="secondary" type="submit" aria-label="${toggle === 'enable' ? 'Enable' : 'Disable'} key ${k.name}">${toggle === 'enable' ? 'Enable' : 'Disable'}</button></form>
      <form class="inline" method="post" action="/dashboard/keys/${k.keyId}/delete" data-confirm="Delete the key “${k.name}”? Requests with it will be refused at once.">${csrfInput(csrf)}<button class="danger" type="submit" aria-label="Delete key ${k.name}">Delete</button></form>
    </td>
  </tr>`;
}

export const keyDone = (what: string): Html => notice('ok', what);
