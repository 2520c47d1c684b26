/** One line of `--input-format stream-json`: a user message, or why the line is not one. */
export type InputLine = { ok: true; text: string; line: number } | { ok: false; error: string; line: number };

/**
 * Reads user messages, one JSON object per line, from `input` until it ends. Accepted shapes:
 * `{"type":"user","message":{"role":"user","content":"…"}}` (content may also be an array of
 * `{"type":"text","text":"…"}` blocks, as Claude Code writes it) and the short
 * `{"type":"user","text":"…"}`. Blank lines are skipped.
 */
export async function* readInputLines(input: NodeJS.ReadableStream): AsyncGenerator<InputLine> {
  // Loaded here: `keen run` imports this module, and only stream-json input reads lines.
  const readline = await import('node:readline');
  const rl = readline.createInterface({ input, crlfDelay: Infinity });
  let n = 0;
  for await (const raw of rl) {
    n++;
    if (!raw.trim()) continue;
    yield parseInputLine(raw, n);
  }
}

export function parseInputLine(raw: string, line: number): InputLine {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    return { ok: false, line, error: `not JSON (${(err as Error).message})` };
  }
  const obj = value as { type?: unknown; text?: unknown; message?: { content?: unknown } };
  if (!obj || typeof obj !== 'object' || obj.type !== 'user') return { ok: false, line, error: 'expected an object with "type": "user"' };
  const content = typeof obj.text === 'string' ? obj.text : obj.message?.content;
  const text = typeof content === 'string' ? content : Array.isArray(content) ? content.map((b) => (b && typeof b.text === 'string' ? b.text : '')).join('') : undefined;
  if (!text?.trim()) return { ok: false, line, error: 'the user message has no text' };
  return { ok: true, line, text };
}
