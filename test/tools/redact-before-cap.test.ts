/**
 * Output is redacted BEFORE it is capped: a credential cut in half by a cap would otherwise leave
 * a fragment the store's redaction no longer recognises (a `sk-ant-api0` head, a tail of key
 * characters). Each capping tool gets a token straddling its cut.
 */
import { describe, expect, it } from 'vitest';
import { BASH_HEAD_CHARS, BASH_TAIL_CHARS } from '../../src/tools/bash.js';
import { createDefaultRegistry } from '../../src/tools/index.js';
import { MCP_HEAD_CHARS, mapCallResult } from '../../src/tools/mcp/result-map.js';
import { HeadTailBuffer } from '../../src/tools/output-cap.js';
import { READ_MAX_LINE_CHARS } from '../../src/tools/read-file.js';
import { call } from './helpers.js';
import { tempProject } from '../kit/temp-dir.js';

const TOKEN = 'sk-ant-api03-Zq7Xw2Lk9Pm4Rt6Yv8Bn1Cd3Fg5Hj0KlMnOpQrStUvWx';
const HEAD = TOKEN.slice(0, 12); // what a cut right after the token's start would show
const TAIL = TOKEN.slice(-24); // what a cut near the token's end would show

/** No fragment of TOKEN (its start or its end) survives in `text`. */
function expectNoFragment(text: string): void {
  expect(text).not.toContain(HEAD);
  expect(text).not.toContain(TAIL);
}

const unsandboxed = createDefaultRegistry({ sandbox: { mode: 'off', network: true } });

describe('redaction before the cap', () => {
  it('bash: a token straddling the head cut and one straddling the tail cut', async () => {
    const dir = tempProject();
    const fill = (n: number, c: string) => `head -c ${n} /dev/zero | tr '\\0' ${c}`;
    const command = [fill(BASH_HEAD_CHARS - 13, 'a'), `printf ' %s ' ${TOKEN}`, fill(40_000, 'b'), `printf ' %s ' ${TOKEN}`, fill(BASH_TAIL_CHARS - 30, 'c')].join('; ');
    const msg = await call(dir, 'bash', { command }, { registry: unsandboxed });
    expect(msg.content).toContain('cut from the middle of the output');
    expect(msg.content).toContain('[REDAC'); // the redacted token, itself cut
    expectNoFragment(msg.content);
  });

  it('HeadTailBuffer fed in small chunks: the token across chunk boundaries and the tail cut', () => {
    const text = `${'x'.repeat(30_000)} ${TOKEN} ${'y'.repeat(975)}`;
    const buffer = new HeadTailBuffer(1000, 1000);
    for (let k = 0; k < text.length; k += 7) buffer.push(text.slice(k, k + 7));
    const out = buffer.text();
    expect(out).toContain('characters) cut from the middle');
    expect(out.endsWith('y'.repeat(975))).toBe(true);
    expectNoFragment(out);
  });

  it('read_file: a long line cut through a token, kept whole or only in part', async () => {
    const dir = tempProject({
      'short.txt': `${'a'.repeat(READ_MAX_LINE_CHARS - 13)} ${TOKEN} ${'b'.repeat(200)}\n`,
      'huge.txt': `${'a'.repeat(READ_MAX_LINE_CHARS - 13)} ${TOKEN} ${'b'.repeat(100_000)}\n`,
    });
    for (const file of ['short.txt', 'huge.txt']) {
      const msg = await call(dir, 'read_file', { path: file });
      expect(msg.content).toMatch(/more (characters|bytes)\]/);
      expectNoFragment(msg.content);
    }
  });

  it('MCP results: a token straddling the head cut', () => {
    const text = `${'a'.repeat(MCP_HEAD_CHARS - 13)} ${TOKEN} ${'b'.repeat(60_000)}`;
    const out = mapCallResult({ content: [{ type: 'text', text }] });
    expect(out.content).toContain('cut from the middle');
    expectNoFragment(out.content);
  });

  it('output that is not cut is returned as it is (the store redacts it)', () => {
    const buffer = new HeadTailBuffer(1000, 1000);
    buffer.push(`key ${TOKEN}\n`);
    expect(buffer.text()).toBe(`key ${TOKEN}\n`);
  });
});
