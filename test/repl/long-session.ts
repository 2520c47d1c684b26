/**
 * A long stored session, written through the real session store: `turns` turns, each a user
 * prompt and an assistant turn of text, a `read_file` card and a code block — four transcript
 * items a turn on replay. Every 50 turns a model switch (a muted notice), and with `compactEvery`
 * a manual compaction whose summary is replayed as markdown. Used by the REPL resume tests and
 * `bench/render.ts`.
 */
import { SessionStore } from '../../src/transcript/store.js';

const USAGE = { input: 1000, output: 100, cache_read: 0, cache_write: 0 };

export function question(t: number): string {
  return `Question ${t}: why does the parser fail on input ${t}?`;
}

/** A line long enough to wrap at 100 columns (and more so at 60). */
export function longLine(t: number): string {
  return `Turn ${t} answer: the tokenizer keeps reading past the closing quote when the input ends inside a string literal, so the parser sees EOF.`;
}

function answer(t: number): { text: string; offset: number } {
  const first = `Let me look at **src/parser.ts** around line ${t}.\n\n- first point\n- second point\n\n`;
  const second = `${longLine(t)}\n\n\`\`\`ts\nexport function parse(input: string): Ast {\n  return new Parser(input).run();\n}\n\`\`\`\nFixed (${t}).`;
  return { text: first + second, offset: first.length };
}

export interface LongSessionOptions {
  home: string;
  cwd: string;
  turns: number;
  compactEvery?: number;
}

/** Writes the session (no fsync: a fixture) and returns its id. */
export async function writeLongSession(opts: LongSessionOptions): Promise<string> {
  const store = await SessionStore.create(opts.home, { cwd: opts.cwd, provider: 'anthropic', model: 'claude-sonnet-4-5', keenVersion: 'test', fsync: false, env: {} });
  for (let t = 0; t < opts.turns; t++) {
    if (t > 0 && t % 50 === 0) await store.append({ kind: 'model_changed', provider: 'anthropic', model: t % 100 === 0 ? 'claude-sonnet-4-5' : 'claude-haiku-4-5' });
    await store.append({ kind: 'user_message', message: { role: 'user', content: question(t) } });
    const { text, offset } = answer(t);
    await store.append({
      kind: 'assistant_turn',
      text,
      tools: [{ id: `call_${t}`, name: 'read_file', summary: 'read src/parser.ts', is_error: false, offset }],
      usage: USAGE,
      messages: [{ role: 'assistant', content: text }],
    });
    if (opts.compactEvery && t % opts.compactEvery === opts.compactEvery - 1) {
      await store.append({
        kind: 'compaction_applied',
        mode: 'manual',
        status: 'Context compacted.',
        messages: [{ role: 'user', content: `<compacted_context>\n## Goal\nFix the parser (summary after turn ${t}).\n</compacted_context>` }],
      });
    }
  }
  await store.close();
  return store.id;
}
