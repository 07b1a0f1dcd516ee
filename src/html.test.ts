// The escaping every page goes through: markup characters as entities, control characters as visible
// stand-ins (docs/dashboard.md, "How the pages are built").
import { describe, expect, it } from 'vitest';
import { escapeHtml, html } from './html.js';

describe('escapeHtml', () => {
  it('escapes markup characters', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&\`</a>`)).toBe(
      '&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&#96;&lt;/a&gt;',
    );
  });

  it('shows C0 controls and DEL as control pictures and C1 controls as U+FFFD, keeping tab, line feed and carriage return', () => {
    expect(escapeHtml('a\u0000b\u0001c\u0008\u000b\u000c\u000e\u001b[0m\u001f\u007f')).toBe(
      'a\u2400b\u2401c\u2408\u240b\u240c\u240e\u241b[0m\u241f\u2421',
    );
    expect(escapeHtml('\u0080x\u0085y\u009f')).toBe('\ufffdx\ufffdy\ufffd');
    expect(escapeHtml('tab\there\nline\r\n')).toBe('tab\there\nline\r\n');
    expect(escapeHtml('é ✈ \u00a0 😀')).toBe('é ✈ \u00a0 😀');
  });

  it('applies to every interpolation, in text and in attributes', () => {
    const name = 'x\u001b"\u0000';
    expect(html`<p title="${name}">${name}</p>`.text).toBe('<p title="x\u241b&quot;\u2400">x\u241b&quot;\u2400</p>');
  });
});
