import { describe, expect, it } from 'vitest';
import { contextSeries, plotSvg } from '../../src/export/context-plot.js';
import { escapeHtml } from '../../src/export/escape.js';
import { PAGE_SCRIPT } from '../../src/export/page-assets.js';
import { editDiff, toolCardHtml } from '../../src/export/tool-card.js';
import { renderSessionPage } from '../../src/export/session-page.js';
import { HOSTILE, sampleRecords } from './records-fixture.js';

const page = () => renderSessionPage({ sessionId: 's1', records: sampleRecords(), limits: { window: 12_000, threshold: 7_113 }, exportedAt: new Date('2026-01-02T00:00:00Z') });

describe('the export page', () => {
  it('escapes every transcript string: no tag or handler of the transcript survives', () => {
    const html = page();
    expect(html).not.toContain("<script>document.documentElement.setAttribute('data-pwned'");
    expect(html).not.toContain('<img');
    expect(html).not.toContain('onerror="');
    expect(html).toContain(escapeHtml(HOSTILE));
    // The page's one script is its own.
    expect(html.match(/<script>/g)).toHaveLength(1);
    expect(html).toContain(`<script>${PAGE_SCRIPT}</script>`);
    // No network: no src, href or url() anywhere; the CSP forbids everything else.
    expect(html).not.toMatch(/<[a-z][^>]*\s(src|href)=|url\(/i);
    expect(html).toMatch(/Content-Security-Policy" content="default-src 'none';[^"]*script-src 'sha256-[A-Za-z0-9+/=]+'/);
  });

  it('shows the compaction as a marker with its summary folded in', () => {
    const html = page();
    const marker =
      /<details class="marker compaction" data-seq="6" data-mode="auto"><summary>Automatic compaction[^<]*1 recent message kept verbatim<\/summary><pre class="summary-text">([^<]*)<\/pre><\/details>/.exec(
        html,
      );
    expect(marker?.[1]).toBe(escapeHtml(`## Goal\nFix it ${HOSTILE}`));
    // Text before and after the marker: the checkpoint's and the next request's.
    const at = html.indexOf('class="marker compaction"');
    expect(html.indexOf('Reading')).toBeLessThan(at);
    expect(html.indexOf('Done.')).toBeGreaterThan(at);
  });

  it('gives an edit a coloured diff and a failed call its badge and output', () => {
    const html = page();
    expect(html).toContain('<span class="d-del">-const a = 1;</span>');
    expect(html).toContain(`<span class="d-add">+const a = 2; // ${escapeHtml(HOSTILE)}</span>`);
    expect(html).toMatch(/<details class="tool" open data-tool="e1">/);
    expect(html).toMatch(/<details class="tool failed" data-tool="r1"><summary><span class="tool-name">read_file<\/span>[\s\S]*?<span class="badge">error<\/span>/);
    expect(html).toContain(`<pre class="output">no such file ${escapeHtml(HOSTILE)}</pre>`);
  });
});

describe('the context plot', () => {
  it('one point per reported request (input + cache), the compaction between the requests around it', () => {
    const series = contextSeries(sampleRecords());
    expect(series.points).toEqual([
      { request: 1, seq: 3, tokens: 1500 },
      { request: 2, seq: 5, tokens: 4000 },
      { request: 3, seq: 8, tokens: 1500 },
    ]);
    expect(series.compactions).toEqual([{ after: 2, seq: 6, mode: 'auto' }]);
  });

  it('draws the points, the threshold line and the compaction line in the SVG', () => {
    const svg = plotSvg(contextSeries(sampleRecords()), { window: 12_000, threshold: 7_113 });
    expect(svg.match(/<circle class="point"/g)).toHaveLength(3);
    expect(svg).toContain('data-request="2" data-tokens="4000"');
    expect(svg).toMatch(/<g class="threshold" data-tokens="7113"><line [^>]*\/><text[^>]*>automatic compaction at 7,113<\/text><\/g>/);
    expect(svg).toContain('<g class="compaction-line" data-seq="6" data-after="2">');
    // Higher tokens sit higher (smaller y); the threshold is above the peak of 4,000.
    const cy = (req: number) => Number(new RegExp(`cy="([\\d.]+)" data-request="${req}"`).exec(svg)?.[1]);
    expect(cy(2)).toBeLessThan(cy(1));
    const ty = Number(/<g class="threshold"[^>]*><line x1="[\d.]+" x2="[\d.]+" y1="([\d.]+)"/.exec(svg)?.[1]);
    expect(ty).toBeLessThan(cy(2));
  });

  it('without automatic compaction there is no threshold line; without usage, a note', () => {
    expect(plotSvg(contextSeries(sampleRecords()), { window: 12_000 })).not.toContain('class="threshold"');
    expect(plotSvg({ points: [], compactions: [] }, { window: 1 })).toContain('no request reported its usage');
  });
});

describe('tool cards', () => {
  it('a write shows its content as added lines; a call id with quotes stays inside its attribute', () => {
    const html = toolCardHtml(
      { id: 'x" onclick="boom', name: 'write_file', summary: 'write_file new.ts', is_error: false, offset: 0 },
      { args: JSON.stringify({ path: 'new.ts', content: 'one\ntwo\n' }), output: 'Wrote new.ts' },
    );
    expect(html).toContain('data-tool="x&quot; onclick=&quot;boom"');
    expect(html).toContain('<span class="d-file">+++ b/new.ts</span>');
    expect(html).toContain('<span class="d-add">+one</span><span class="d-add">+two</span>');
    // The name is not said twice.
    expect(html).toContain('<span class="tool-name">write_file</span> <span class="tool-summary">new.ts</span>');
  });

  it('other tools fold their arguments and output; arguments that are not JSON are shown as they are', () => {
    const html = toolCardHtml({ id: 'b1', name: 'bash', summary: 'bash ls', is_error: false, offset: 0 }, { args: 'not json <x>', output: 'a\nb' });
    expect(html).toMatch(/^<details class="tool" data-tool="b1">/);
    expect(html).toContain('<pre>not json &lt;x&gt;</pre>');
    expect(editDiff('bash', '{"command":"ls"}')).toBeUndefined();
  });
});
