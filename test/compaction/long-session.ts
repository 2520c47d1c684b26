/**
 * A long session for the loop over the real Anthropic adapter: the file's loopback fake, and for
 * each test a fresh folder of large files for the model to read until the window fills.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createAnthropicAdapter } from '../../src/providers/anthropic.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { tempDir } from '../kit/temp-dir.js';

/** ~1,500 tokens of varied text: file `n`. */
export const bigText = (n: number) => Array.from({ length: 150 }, (_, i) => `line ${i} of file ${n}: value_${(i * 7919 + n) % 10007} alpha beta`).join('\n');

export interface LongSession {
  /** The file's fake; its requests and responder are cleared before each test. */
  readonly fake: ScriptedServer;
  /** This test's folder, holding `<prefix>-1.txt` … `<prefix>-<count>.txt`. */
  readonly cwd: string;
  /** The Anthropic adapter on the fake, its home in `cwd`. */
  adapter(model: string): ReturnType<typeof createAnthropicAdapter>;
}

/** Call at the top of a test file: the fake for all its tests, `count` files of {@link bigText} for each. */
export function useLongSession(count: number, prefix: string): LongSession {
  let fake: ScriptedServer | undefined;
  let cwd = '';
  beforeAll(async () => {
    fake = await startAnthropicFake();
  });
  afterAll(() => fake?.close());
  beforeEach(() => {
    fake!.requests.length = 0;
    fake!.setResponder(undefined);
    cwd = tempDir();
    for (let i = 1; i <= count; i++) fs.writeFileSync(path.join(cwd, `${prefix}-${i}.txt`), bigText(i));
  });
  return {
    get fake() {
      if (!fake) throw new Error('useLongSession: the fake starts in beforeAll');
      return fake;
    },
    get cwd() {
      return cwd;
    },
    adapter(model) {
      return createAnthropicAdapter({ model, apiKey: 'test-key', baseURL: this.fake.url, home: cwd, env: {} });
    },
  };
}
