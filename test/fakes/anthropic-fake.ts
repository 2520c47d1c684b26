/**
 * A loopback Anthropic Messages API: `POST /v1/messages` answered from the shared script, as the
 * real streaming SSE protocol (or one JSON message when `stream` is not true).
 */
import { contextManagementError, headerBetas, thinkingBudgetError, thinkingFormError } from './thinking-checks.js';
import type http from 'node:http';
import type { FakeReply, FakeStep, RecordedRequest } from './script.js';
import { argsText, isPause, pause, refusalsAsText, stopReasonOf } from './script.js';
import { anthropicImageError } from './image-checks.js';
import { startScriptedServer, type ScriptedServer } from './scripted-server.js';
import type { ContextWindowed } from './context-window.js';

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

/** Delay the SDK is told to wait before retrying, so retry tests stay fast. */
export const FAKE_RETRY_AFTER_MS = 20;

/**
 * What this fake has handed out, so it can refuse a replay the real API refuses: a thinking block
 * whose signature it never issued for exactly that text, redacted data it never sent, or (with
 * thinking on) a tool-use turn it answered with thinking first, replayed without it.
 */
class IssuedReasoning {
  readonly signatures = new Map<string, string>();
  readonly redacted = new Set<string>();
  /** Tool calls of replies that began with a thinking block. */
  readonly thoughtfulCalls = new Set<string>();

  /** Note a reply's tool call; `steps` are the reply's steps. */
  called(id: string, steps: readonly object[]): void {
    const first = steps[0];
    if (first && ('thinking' in first || 'redacted' in first)) this.thoughtfulCalls.add(id);
  }

  check(body: any): NonNullable<FakeReply['error']> | undefined {
    const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
    const thinkingOn = body?.thinking?.type === 'enabled' || body?.thinking?.type === 'adaptive';
    const final = messages.findLastIndex((m) => m?.role === 'assistant');
    const turn: any[] = Array.isArray(messages[final]?.content) ? messages[final].content : [];
    if (thinkingOn && turn.some((b) => b?.type === 'tool_use' && this.thoughtfulCalls.has(b.id)) && !['thinking', 'redacted_thinking'].includes(turn[0]?.type)) {
      return {
        status: 400,
        message: `messages.${final}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${turn[0]?.type}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`.`,
      };
    }
    for (let i = 0; i < messages.length; i++) {
      const content: any[] = Array.isArray(messages[i].content) ? messages[i].content : [];
      for (let j = 0; j < content.length; j++) {
        const b = content[j];
        if (b?.type === 'thinking' && this.signatures.get(b.signature) !== b.thinking) {
          return { status: 400, message: `messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block` };
        }
        if (b?.type === 'redacted_thinking' && !this.redacted.has(b.data)) {
          return { status: 400, message: `messages.${i}.content.${j}: Invalid \`data\` in \`redacted_thinking\` block` };
        }
      }
    }
    return undefined;
  }
}

/** The Anthropic fake: a scripted server that can also refuse requests over a context window. */
export interface AnthropicFake extends ScriptedServer, ContextWindowed {
  /**
   * Refuse, as the service does, every request whose input exceeds `tokens` (counted like the
   * fake's usage: a quarter of the characters of system, messages and tools); undefined: no limit.
   */
  setContextWindow(tokens: number | undefined): void;
}

export interface AnthropicFakeOptions {
  /** See {@link AnthropicFake.setContextWindow}. */
  contextWindow?: number;
}

export async function startAnthropicFake(opts: AnthropicFakeOptions = {}): Promise<AnthropicFake> {
  let served = 0;
  let contextWindow = opts.contextWindow;
  const issued = new IssuedReasoning();
  const server = await startScriptedServer({
    accepts: (method, path) => method === 'POST' && path.split('?')[0] === '/v1/messages',
    validate: (req) => {
      const image = anthropicImageError(req.body);
      if (image) return { status: 400, message: image };
      const tokens = inputTokens(req);
      if (contextWindow !== undefined && tokens > contextWindow) {
        return { status: 400, message: `prompt is too long: ${tokens} tokens > ${contextWindow} maximum` };
      }
      const thinking =
        thinkingFormError(req.body?.model, req.body?.thinking) ??
        thinkingBudgetError(req.body?.thinking, req.body?.max_tokens) ??
        contextManagementError(req.body?.context_management, headerBetas(req.headers['anthropic-beta']), req.body?.thinking);
      return thinking ? { status: 400, message: thinking } : issued.check(req.body);
    },
    encodeError: writeError,
    encode: async (reply, res, req) => {
      served++;
      if (!hasCredentials(req)) {
        writeError({ status: 401, message: 'x-api-key header is required' }, res);
        return;
      }
      const id = `msg_fake_${served}`;
      if (req.body?.stream === true) await writeStream(reply, res, req, id, issued);
      else writeJson(reply, res, req, id, issued);
    },
  });
  return {
    ...server,
    setContextWindow: (tokens) => {
      contextWindow = tokens;
    },
    inputTokens,
  };
}

/** The fake's count of a request's input tokens: a quarter of the characters it sends. */
export function inputTokens(req: RecordedRequest): number {
  return Math.ceil(JSON.stringify([req.body?.system ?? '', req.body?.messages ?? [], req.body?.tools ?? []]).length / 4);
}

/** The real API takes `x-api-key`; this SDK version sends the key as `Authorization: Bearer`. */
function hasCredentials(req: RecordedRequest): boolean {
  const key = req.headers['x-api-key'];
  const auth = req.headers.authorization;
  return (typeof key === 'string' && key !== '') || (typeof auth === 'string' && /^Bearer \S+/.test(auth));
}

function writeError(error: NonNullable<FakeReply['error']>, res: http.ServerResponse): void {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'request-id': 'req_fake' };
  const retryable = error.status === 408 || error.status === 409 || error.status === 429 || error.status >= 500;
  if (retryable) {
    headers['retry-after-ms'] = String(FAKE_RETRY_AFTER_MS);
    headers['retry-after'] = '1';
  }
  const type = error.type ?? ERROR_TYPES[error.status] ?? (error.status >= 500 ? 'api_error' : 'invalid_request_error');
  res.writeHead(error.status, headers);
  res.end(JSON.stringify({ type: 'error', error: { type, message: error.message }, request_id: 'req_fake' }));
}

function usageOf(reply: FakeReply, req: RecordedRequest) {
  const produced = refusalsAsText(reply).reduce((n, s) => n + stepChars(s), 0);
  return {
    input_tokens: reply.usage?.input ?? inputTokens(req),
    cache_creation_input_tokens: reply.usage?.cacheWrite ?? 0,
    cache_read_input_tokens: reply.usage?.cacheRead ?? 0,
    output_tokens: reply.usage?.output ?? Math.max(1, Math.ceil(produced / 4)),
  };
}

function stepChars(step: Exclude<FakeStep, { refusal: string }>): number {
  if ('text' in step) return step.text.length;
  if ('thinking' in step) return step.thinking.length;
  if ('toolCall' in step) return argsText(step.toolCall.args).length;
  return 0;
}

function send(res: http.ServerResponse, event: string, data: unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`, (err) => (err ? reject(err) : resolve()));
  });
}

/** Splits text into `parts` roughly equal pieces (fewer when the text is short). */
function pieces(text: string, parts: number): string[] {
  if (text.length <= 1) return [text];
  const size = Math.max(1, Math.ceil(text.length / parts));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

async function writeStream(reply: FakeReply, res: http.ServerResponse, req: RecordedRequest, id: string, issued: IssuedReasoning): Promise<void> {
  const usage = usageOf(reply, req);
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'request-id': 'req_fake' });
  await send(res, 'message_start', {
    type: 'message_start',
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model: req.body?.model ?? 'claude-fake',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1, service_tier: 'standard' },
    },
  });
  await send(res, 'ping', { type: 'ping' });
  let index = 0;
  let tools = 0;
  for (const step of refusalsAsText(reply)) {
    if ('cut' in step) {
      res.destroy();
      return;
    }
    if (isPause(step)) {
      if (await pause(step, res)) continue;
      return;
    }
    const at = index++;
    if ('text' in step) {
      await send(res, 'content_block_start', { type: 'content_block_start', index: at, content_block: { type: 'text', text: '' } });
      for (const text of pieces(step.text, 3)) {
        await send(res, 'content_block_delta', { type: 'content_block_delta', index: at, delta: { type: 'text_delta', text } });
      }
    } else if ('thinking' in step) {
      const start = { type: 'thinking', thinking: '', signature: '' };
      await send(res, 'content_block_start', { type: 'content_block_start', index: at, content_block: start });
      for (const thinking of pieces(step.thinking, 3)) {
        await send(res, 'content_block_delta', { type: 'content_block_delta', index: at, delta: { type: 'thinking_delta', thinking } });
      }
      const signature = step.signature ?? `sig_fake_${id}_${at}`;
      issued.signatures.set(signature, step.thinking);
      await send(res, 'content_block_delta', { type: 'content_block_delta', index: at, delta: { type: 'signature_delta', signature } });
    } else if ('redacted' in step) {
      issued.redacted.add(step.redacted);
      await send(res, 'content_block_start', { type: 'content_block_start', index: at, content_block: { type: 'redacted_thinking', data: step.redacted } });
    } else {
      const call = step.toolCall;
      const block = { type: 'tool_use', id: call.id ?? `toolu_fake_${id}_${++tools}`, name: call.name, input: {} };
      issued.called(block.id, refusalsAsText(reply));
      await send(res, 'content_block_start', { type: 'content_block_start', index: at, content_block: block });
      // Like the real API: an empty first chunk, then the JSON in several partial pieces.
      for (const partial_json of ['', ...pieces(argsText(call.args), 4)]) {
        await send(res, 'content_block_delta', { type: 'content_block_delta', index: at, delta: { type: 'input_json_delta', partial_json } });
      }
    }
    await send(res, 'content_block_stop', { type: 'content_block_stop', index: at });
  }
  await send(res, 'message_delta', {
    type: 'message_delta',
    delta: { stop_reason: stopReasonOf(reply), stop_sequence: null, stop_details: stopDetailsOf(reply) },
    usage,
  });
  await send(res, 'message_stop', { type: 'message_stop' });
  res.end();
}

function writeJson(reply: FakeReply, res: http.ServerResponse, req: RecordedRequest, id: string, issued: IssuedReasoning): void {
  if ((reply.steps ?? []).some((s) => 'cut' in s)) {
    res.destroy();
    return;
  }
  let tools = 0;
  const content: unknown[] = [];
  for (const step of refusalsAsText(reply)) {
    if ('text' in step) content.push({ type: 'text', text: step.text });
    else if ('thinking' in step) {
      const signature = step.signature ?? `sig_fake_${id}`;
      issued.signatures.set(signature, step.thinking);
      content.push({ type: 'thinking', thinking: step.thinking, signature });
    } else if ('redacted' in step) {
      issued.redacted.add(step.redacted);
      content.push({ type: 'redacted_thinking', data: step.redacted });
    } else if ('toolCall' in step) {
      const c = step.toolCall;
      const callId = c.id ?? `toolu_fake_${id}_${++tools}`;
      issued.called(callId, refusalsAsText(reply));
      content.push({ type: 'tool_use', id: callId, name: c.name, input: parseOr(argsText(c.args)) });
    }
  }
  const message = {
    id,
    type: 'message',
    role: 'assistant',
    model: req.body?.model ?? 'claude-fake',
    content,
    stop_reason: stopReasonOf(reply),
    stop_sequence: null,
    stop_details: stopDetailsOf(reply),
    usage: usageOf(reply, req),
  };
  res.writeHead(200, { 'content-type': 'application/json', 'request-id': 'req_fake' });
  res.end(JSON.stringify(message));
}

/** `stop_details`: set for a refusal (its category and explanation may each be null), else null. */
function stopDetailsOf(reply: FakeReply): unknown {
  if (stopReasonOf(reply) !== 'refusal') return null;
  return { type: 'refusal', category: reply.refusal?.category ?? null, explanation: reply.refusal?.explanation ?? null };
}

function parseOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}
