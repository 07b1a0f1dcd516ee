// The dashboard's assets, served by the service itself (no CDN): one stylesheet and one small script
// of progressive enhancement (copy buttons, confirmations) that every page loads, and the batch pages'
// own script (upload and progress: batches-script.ts), loaded by those pages only, and the mark. Every page works
// without scripts: forms post and pages answer in HTML.
import { createHash } from 'node:crypto';
import { LOGO_SVG } from '../brand.js';
import { BATCHES_JS } from './batches-script.js';

const CSS = `
:root{--fg:#1b1f24;--muted:#4b5563;--bg:#fff;--panel:#f5f7fa;--line:#d0d7de;--accent:#0b57d0;--accent-fg:#fff;--bad:#b3261e;--ok:#146c2e;--warn:#8a5300}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--accent)}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,summary:focus-visible,figure.chart:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
header.top{display:flex;align-items:center;gap:1.5rem;padding:.75rem 1.5rem;border-bottom:1px solid var(--line);background:var(--panel);flex-wrap:wrap}
header.top .brand{font-weight:700;color:var(--fg);text-decoration:none;display:inline-flex;align-items:center;gap:.5rem}
header.top nav ul{display:flex;gap:1rem;list-style:none;margin:0;padding:0;flex-wrap:wrap}
header.top nav a[aria-current=page]{font-weight:700;text-decoration:none;color:var(--fg)}
header.top form{margin-left:auto;display:flex;align-items:center;gap:.5rem;min-width:0}
header.top form .hint{display:inline-block;min-width:0;max-width:20rem;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;vertical-align:middle}
@media (min-width:64rem){header.top{flex-wrap:nowrap}header.top nav ul{flex-wrap:nowrap;white-space:nowrap}header.top .brand,header.top nav{flex-shrink:0}}
main{max-width:64rem;margin:0 auto;padding:1.5rem}
.narrow{max-width:28rem}
h1{font-size:1.6rem;margin:.5rem 0 1rem}
h2{font-size:1.2rem;margin:1.5rem 0 .5rem}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input[type=text],input[type=email],input[type=password],input[type=url],input[type=date],input[type=search],select{width:100%;padding:.5rem;border:1px solid #6b7280;border-radius:4px;font:inherit}
input[aria-invalid=true]{border-color:var(--bad);border-width:2px}
.hint{color:var(--muted);font-size:.9rem;margin:.25rem 0}
.error{color:var(--bad);font-weight:600;margin:.25rem 0}
.notice{padding:.75rem 1rem;border-radius:4px;border:1px solid var(--line);background:var(--panel);margin:1rem 0}
.notice.bad{border-color:var(--bad);color:var(--bad)}
.notice.ok{border-color:var(--ok);color:var(--ok)}
.filter-fields{display:flex;flex-wrap:wrap;gap:0 1rem}.filter-fields p{margin:.25rem 0;min-width:9rem;flex:1 1 9rem}
.pager{display:flex;justify-content:space-between;gap:1rem;margin:1rem 0}
button,.button{display:inline-block;padding:.45rem .9rem;border:1px solid var(--accent);border-radius:4px;background:var(--accent);color:var(--accent-fg);font:inherit;cursor:pointer;text-decoration:none}
button.secondary{background:var(--bg);color:var(--accent)}
button.danger{background:var(--bg);color:var(--bad);border-color:var(--bad)}
form.inline{display:inline}
.actions{display:flex;gap:.5rem;flex-wrap:wrap;align-items:center}
table{border-collapse:collapse;width:100%;margin:.5rem 0}
th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-weight:600;background:var(--panel)}
code,.secret{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9rem;word-break:break-all}
.secret{display:block;padding:.5rem;background:var(--panel);border:1px solid var(--line);border-radius:4px;margin:.25rem 0}
.stats{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:1rem;margin:1rem 0;padding:0}
.stats div{background:var(--panel);border:1px solid var(--line);border-radius:4px;padding:.75rem}
.stats dt{color:var(--muted);font-size:.9rem}
.stats dd{margin:0;font-size:1.4rem;font-weight:700}
.badge{display:inline-block;padding:0 .4rem;border-radius:3px;font-size:.85rem;border:1px solid currentColor}
.badge.ok{color:var(--ok)}.badge.bad{color:var(--bad)}.badge.warn{color:var(--warn)}
.chart svg{width:100%;height:auto;max-height:16rem}
@media (max-width:40rem){
main{padding:1rem}
header.top{padding:.75rem 1rem;gap:.5rem 1rem}
header.top form{margin-left:0;flex-wrap:wrap}
table{display:block;overflow-x:auto;max-width:100%;position:relative}
.chart{overflow-x:auto;direction:rtl}.chart>*{direction:ltr}.chart svg{min-width:36rem;max-height:none}
}
.hash{overflow-wrap:anywhere}
.legend{display:flex;gap:1rem;list-style:none;padding:0;margin:.25rem 0;flex-wrap:wrap}
.legend span{display:inline-block;width:.9rem;height:.9rem;margin-right:.35rem;vertical-align:-2px}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
img.proof{max-width:100%;border:1px solid var(--line)}
fieldset{border:1px solid var(--line);border-radius:4px;margin:1rem 0;padding:.5rem 1rem}
legend{font-weight:600}
ul.airports{list-style:none;padding:0;columns:16rem;margin:.5rem 0}
ul.airports li{break-inside:avoid;padding:.1rem 0}
ul.airports label,.inline-label{display:inline;font-weight:400}
textarea{width:100%;padding:.5rem;border:1px solid #6b7280;border-radius:4px;font:.9rem/1.4 ui-monospace,SFMono-Regular,Menlo,monospace}
textarea:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.dropzone{border:2px dashed #6b7280;border-radius:6px;padding:.5rem 1rem 1rem;margin:.75rem 0;background:var(--panel)}
.dropzone.dragging{border-color:var(--accent);background:#e8f0fe}
.dropzone label{margin-top:.25rem}
progress{width:min(24rem,100%);height:1.1rem;vertical-align:middle;accent-color:var(--accent)}
.chart.bars{margin:.5rem 0}
.chart.bars svg{max-width:24rem;max-height:none}
.scroll{overflow-x:auto;margin:.5rem 0}
.parties{display:flex;flex-wrap:wrap;gap:1rem 2rem;margin:1rem 0}
.parties section{flex:1 1 14rem}
.parties h2{font-size:.85rem;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);margin:0 0 .25rem}
textarea{display:block;width:min(32rem,100%);font:inherit;padding:.4rem;border:1px solid #6b7280;border-radius:4px;margin:.25rem 0 .75rem}
.scroll:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.scroll table{margin:0}
td{font-variant-numeric:tabular-nums}
table.results{font-size:.9rem}
table.results th,table.results td{padding:.4rem .35rem}
table.results td.nw{white-space:nowrap}
table.results td.ref{max-width:12rem;overflow-wrap:anywhere}
table.results td.note{min-width:8rem}
ul.filters{display:flex;gap:1rem;list-style:none;padding:0;margin:.5rem 0;flex-wrap:wrap}
ul.filters a[aria-current=page]{font-weight:700;color:var(--fg);text-decoration:none}
.notice.bad table,.notice.bad td,.notice.bad th{color:var(--fg)}
`;

const JS = `
document.addEventListener('click', function (event) {
  var button = event.target.closest('[data-copy]');
  if (!button) return;
  var source = document.getElementById(button.getAttribute('data-copy'));
  if (!source || !navigator.clipboard) return;
  navigator.clipboard.writeText(source.textContent.trim()).then(function () {
    var status = document.getElementById(button.getAttribute('data-copy') + '-status');
    if (status) status.textContent = 'Copied';
  });
});
document.addEventListener('submit', function (event) {
  var question = event.target.getAttribute('data-confirm');
  if (question && !window.confirm(question)) event.preventDefault();
});
document.querySelectorAll('[data-copy]').forEach(function (button) { button.hidden = !navigator.clipboard; });
document.querySelectorAll('[data-filter]').forEach(function (search) {
  var list = document.getElementById(search.getAttribute('data-filter'));
  search.hidden = false;
  search.addEventListener('input', function () {
    var words = search.value.toLowerCase().split(/\\s+/).filter(Boolean);
    list.querySelectorAll('li').forEach(function (item) {
      var text = item.getAttribute('data-text');
      item.hidden = !words.every(function (word) { return text.indexOf(word) !== -1; }) && !item.querySelector('input').checked;
    });
  });
});
`;

export interface Asset {
  body: string;
  type: string;
  etag: string;
}

const asset = (body: string, type: string): Asset => ({
  body,
  type,
  etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
});

export const ASSETS: Record<string, Asset> = {
  'dashboard.css': asset(CSS.trim(), 'text/css; charset=utf-8'),
  'dashboard.js': asset(JS.trim(), 'text/javascript; charset=utf-8'),
  'batches.js': asset(BATCHES_JS.trim(), 'text/javascript; charset=utf-8'),
  'logo.svg': asset(LOGO_SVG, 'image/svg+xml'),
};
