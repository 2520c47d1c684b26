/**
 * `keen -p --image PATH` against each provider's loopback fake: the image reaches the request in
 * the service's own form (the fakes refuse a malformed one as the services do), a resumed session
 * sends it again, and a bad file or a model without image input is one `keen:` line before any
 * request.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { png } from '../kit/png-bytes.js';
import { assertBuilt, errorLines } from './cli-fixtures.js';
import { runKeen } from './harness.js';
import { PROVIDER_CASES, type ProviderCase, providerCase, startProvider } from './provider-cases.js';

const SHOT = png(64, 48);
const B64 = SHOT.toString('base64');
const DATA_URL = `data:image/png;base64,${B64}`;

interface Case extends ProviderCase {
  /** The image as the request carries it, from the recorded body of the first user turn. */
  image: (body: any) => unknown;
  expected: unknown;
}

const firstUser = (messages: any[]) => messages.find((m) => m.role === 'user');
const RESPONSES_IMAGE = { image: (b: any) => firstUser(b.input).content[0], expected: { type: 'input_image', image_url: DATA_URL, detail: 'auto' } };

const IMAGE: Record<string, Pick<Case, 'image' | 'expected'>> = {
  anthropic: { image: (b) => firstUser(b.messages).content[0], expected: { type: 'image', source: { type: 'base64', media_type: 'image/png', data: B64 } } },
  openai: { image: (b) => firstUser(b.messages).content[0], expected: { type: 'image_url', image_url: { url: DATA_URL } } },
  'openai-responses': RESPONSES_IMAGE,
  codex: RESPONSES_IMAGE,
  bedrock: { image: (b) => firstUser(b.messages).content[0], expected: { image: { format: 'png', source: { bytes: B64 } } } },
  genkit: { image: (b) => firstUser(b.contents).parts[0], expected: { inlineData: { mimeType: 'image/png', data: B64 } } },
};

const CASES: Case[] = PROVIDER_CASES.map((pc) => ({ ...pc, ...IMAGE[pc.provider] }));

describe('keen -p --image', () => {
  assertBuilt();
  async function setup(c: ProviderCase, files: Record<string, string | Buffer> = {}) {
    const started = await startProvider(c);
    fs.writeFileSync(path.join(started.ws.cwd, 'shot.png'), SHOT);
    for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(started.ws.cwd, name), content);
    return started;
  }

  it.each(CASES.map((c) => [c.provider, c] as const))('%s: the image is in the request in the service form, and again after a resume', async (_name, c) => {
    const { fake, ws, env } = await setup(c);
    fake.enqueue({ steps: [{ text: 'A black rectangle.' }] }, { steps: [{ text: 'Still black.' }] });
    const res = await runKeen(['-p', '--provider', c.provider, '--image', 'shot.png', 'what is this'], { cwd: ws.cwd, home: ws.home, env });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('A black rectangle.');
    expect(c.image(fake.requests[0].body)).toEqual(c.expected);
    expect(JSON.stringify(fake.requests[0].body)).toContain('what is this');

    // The transcript holds the image: the next turn of the session sends the same block.
    const again = await runKeen(['-p', '-c', '--provider', c.provider, 'and now?'], { cwd: ws.cwd, home: ws.home, env });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Still black.');
    expect(fake.requests).toHaveLength(2);
    expect(c.image(fake.requests[1].body)).toEqual(c.expected);
  });

  const anthropic = providerCase('anthropic');

  it('a model that takes no images: one keen: line, exit 2, no request', async () => {
    const { fake, ws, env } = await setup(anthropic);
    fs.writeFileSync(path.join(ws.home, 'config.json'), JSON.stringify({ models: { 'text-only': { provider: 'anthropic', id: 'claude-text', images: false } } }));
    const res = await runKeen(['-p', '--model', 'text-only', '--image', 'shot.png', 'what is this'], { cwd: ws.cwd, home: ws.home, env });
    expect(res.code).toBe(2);
    expect(errorLines(res.stderr)).toEqual(['keen: --image: model text-only takes no images (a config "models" entry with "images": true says it does)']);
    expect(fake.requests).toHaveLength(0);
  });

  it('a session continued on a model that takes no images sends a line naming the image, not the image', async () => {
    const { fake, ws, env } = await setup(anthropic);
    fs.writeFileSync(path.join(ws.home, 'config.json'), JSON.stringify({ models: { 'text-only': { provider: 'anthropic', id: 'claude-text', images: false } } }));
    fake.enqueue({ steps: [{ text: 'A black rectangle.' }] }, { steps: [{ text: 'From your words only.' }] });
    expect((await runKeen(['-p', '--image', 'shot.png', 'what is this'], { cwd: ws.cwd, home: ws.home, env })).code).toBe(0);
    const res = await runKeen(['-p', '-c', '--model', 'text-only', 'and now?'], { cwd: ws.cwd, home: ws.home, env });
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('From your words only.');
    const wire = JSON.stringify(fake.requests[1].body);
    expect(wire).not.toContain(B64);
    expect(fake.requests[1].body.messages[0].content).toEqual([
      { type: 'text', text: `what is this\n[image: image/png, ${(Math.floor((B64.length * 3) / 4) / 1024).toFixed(1)} KB — not sent: this model takes no images]` },
    ]);
  });

  it('a file that is not an image, a missing one, one over each limit and one in a credential store: one line each', async () => {
    const { fake, ws, env } = await setup(anthropic, { 'notes.png': 'just text, named like an image\n', 'tall.png': png(100, 9000) });
    // A PNG head, then a sparse 5 MB: refused on its stat, before a byte is read.
    const big = path.join(ws.cwd, 'big.png');
    fs.writeFileSync(big, SHOT);
    fs.truncateSync(big, 5 * 1024 * 1024);
    const ssh = path.join(ws.home, 'user', '.ssh');
    fs.mkdirSync(ssh, { recursive: true });
    fs.writeFileSync(path.join(ssh, 'id_ed25519.png'), SHOT);
    fs.symlinkSync(path.join(ssh, 'id_ed25519.png'), path.join(ws.cwd, 'key.png'));
    const run = (file: string) => runKeen(['-p', '--image', file, 'what is this'], { cwd: ws.cwd, home: ws.home, env: { ...env, HOME: path.join(ws.home, 'user') } });

    const cases: [string, RegExp][] = [
      ['notes.png', /^keen: --image notes\.png is not a PNG, JPEG, GIF or WebP image \(by its first bytes\)$/],
      ['gone.png', /^keen: --image gone\.png: no such file$/],
      [
        'big.png',
        /^keen: --image big\.png is 5 MB, over the 3\.75 MB \(3,932,160 bytes\) the model APIs accept; Keen does not resize images, so scale it down or save it as JPEG first$/,
      ],
      [
        'tall.png',
        /^keen: --image tall\.png is 100×9000 px, longer than the 8000 px a side the model APIs accept; Keen does not resize images, so scale it to at most 8000×8000 px first$/,
      ],
      ['key.png', /^keen: --image key\.png is in a credential store \(.*\.ssh\/id_ed25519\.png\)$/],
    ];
    for (const [file, line] of cases) {
      const res = await run(file);
      expect(res.code, file).toBe(2);
      const lines = errorLines(res.stderr);
      expect(lines, file).toHaveLength(1);
      expect(lines[0]).toMatch(line);
    }
    expect(fake.requests).toHaveLength(0);

    // The REPL takes @PATH instead; --image without -p says so.
    const repl = await runKeen(['--image', 'shot.png', '--', 'what is this'], { cwd: ws.cwd, home: ws.home, env });
    expect(repl.code).toBe(2);
    expect(errorLines(repl.stderr)).toEqual(['keen: --image attaches to a headless message (with -p); in the REPL, type @PATH or paste the path']);
  });
});
