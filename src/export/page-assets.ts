/**
 * The stylesheet and the one script of the exported page, inline. The page's Content-Security-Policy
 * allows this script by its hash and nothing else: no network, and no script that transcript text
 * could smuggle in would run even if escaping failed.
 */
import { createHash } from 'node:crypto';

export const PAGE_CSS = `
:root{--fg:#1d2430;--muted:#687385;--bg:#f6f7f9;--card:#fff;--line:#d9dde3;--accent:#3b6fd8;--warn:#c2410c;--add:#e6f6ea;--add-fg:#116329;--del:#fdecec;--del-fg:#a40e26}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:1000px;margin:0 auto;padding:24px 16px 64px}
h1{font-size:20px;margin:0 0 4px}
.meta{color:var(--muted);font-size:13px;margin-bottom:16px}
.stats{display:flex;gap:20px;flex-wrap:wrap;font-size:13px;margin:8px 0 12px}
.stats b{font-variant-numeric:tabular-nums}
pre{margin:0;white-space:pre-wrap;word-break:break-word;font:12.5px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.msg{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 14px;margin:10px 0}
.msg .who{font-size:12px;font-weight:600;color:var(--muted);text-transform:uppercase;letter-spacing:.04em;margin-bottom:4px}
.user{border-left:4px solid var(--accent)}
.text{white-space:pre-wrap;word-break:break-word}
.tool{border:1px solid var(--line);border-radius:6px;margin:6px 0;background:#fafbfc}
.tool>summary{cursor:pointer;padding:4px 8px;font:13px ui-monospace,Menlo,Consolas,monospace}
.tool>*:not(summary){margin:0 8px 8px}
.tool.failed{border-color:#f1b5b5}
.tool-name{font-weight:700}
.badge{background:var(--del);color:var(--del-fg);border-radius:4px;padding:0 5px;font-size:11px}
.label{font-size:11px;color:var(--muted);text-transform:uppercase;margin-top:6px}
.diff span{display:block}
.d-add{background:var(--add);color:var(--add-fg)}
.d-del{background:var(--del);color:var(--del-fg)}
.d-hunk{color:var(--accent)}
.d-file{color:var(--muted);font-weight:600}
.marker{border:1px dashed var(--warn);border-radius:8px;margin:16px 0;padding:6px 12px;background:#fff7ed}
.marker>summary{cursor:pointer;color:var(--warn);font-weight:600}
.marker .summary-text{margin-top:8px;background:var(--card);border-radius:6px;padding:8px}
.note{color:var(--muted);font-size:13px;margin:8px 0;text-align:center}
.plot{width:100%;height:auto;background:var(--card);border:1px solid var(--line);border-radius:8px}
.plot .frame{fill:none;stroke:var(--line)}
.plot .axis{font-size:11px;fill:var(--muted)}
.plot .series{fill:none;stroke:var(--accent);stroke-width:2}
.plot .point{fill:var(--accent)}
.plot .threshold line{stroke:var(--warn);stroke-dasharray:6 4}
.plot .threshold text{font-size:11px;fill:var(--warn)}
.plot .compaction-line line{stroke:var(--warn);stroke-width:2;opacity:.6}
button{font:inherit;font-size:13px;border:1px solid var(--line);background:var(--card);border-radius:6px;padding:2px 10px;cursor:pointer}
`;

/** Marks the page as scripted (tests read it from the DOM) and folds or unfolds every card. */
export const PAGE_SCRIPT = `document.documentElement.setAttribute('data-script','ran');
var t=document.getElementById('toggle-all');
if(t){t.hidden=false;t.addEventListener('click',function(){var open=t.getAttribute('data-open')!=='1';document.querySelectorAll('details').forEach(function(d){d.open=open});t.setAttribute('data-open',open?'1':'0');t.textContent=open?'Fold all':'Unfold all';});}`;

/** The Content-Security-Policy of the page: inline styles, data images, and PAGE_SCRIPT only. */
export function pagePolicy(): string {
  const hash = createHash('sha256').update(PAGE_SCRIPT).digest('base64');
  return `default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-${hash}'; base-uri 'none'; form-action 'none'`;
}
