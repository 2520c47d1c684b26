import type http from 'node:http';
import { argsText, isPause, pause, sleep, stopReasonOf, type FakeReply, type RecordedRequest } from './script.js';
import { chatToolImageError, chatUserImageError } from './image-checks.js';
import { ContextWindow, type ContextWindowed } from './context-window.js';
import { startScriptedServer, writeSse, type ScriptedServer } from './scripted-server.js';

/**
 * A loopback Chat Completions server speaking the real SSE format: `chat.completion.chunk` deltas
 * (tool calls by index, arguments split across chunks), a finish chunk, a final usage chunk with
 * empty `choices`, then `data: [DONE]`. Point the SDK at `${url}/v1`.
 *
 * Usage is encoded the OpenAI way: `prompt_tokens` = input + cacheRead (cached tokens are part of
 * the prompt) and `prompt_tokens_details.cached_tokens` = cacheRead; cacheWrite has no field.
 * `thinking` steps become `reasoning_content` deltas (DeepSeek / vLLM style). `reasoning` usage
 * tokens are inside `completion_tokens` (OpenAI), or outside it but inside `total_tokens` (xAI).
 *
 * `family` picks a server's rules: `deepseek` refuses a history that drops any reasoning of a
 * tool-using user turn (see checkReasoningReplay); `xai` reports usage the xAI way. Every family
 * refuses a tool-call message without the reasoning streamed with its calls.
 *
 * Over-window option (`contextWindow`, `setContextWindow`): a request whose messages and tools
 * exceed the window gets the service's 400 `context_length_exceeded`.
 */
export async function startOpenAIChatFake(opts: { family?: ChatFakeFamily; contextWindow?: number } = {}): Promise<ScriptedServer & ContextWindowed> {
  const issued: IssuedReasoning = new Map();
  const family = opts.family ?? 'openai';
  const window = new ContextWindow((body) => [body.messages ?? [], body.tools ?? []], opts);
  const server = await startScriptedServer({
    accepts: (method, path) => method === 'POST' && /^(\/v1)?\/chat\/completions(\?|$)/.test(path),
    validate: (req) => {
      // The service refuses more than 128 tools in one request, in these words.
      const tools = Array.isArray(req.body?.tools) ? req.body.tools.length : 0;
      if (tools > 128) {
        return {
          status: 400,
          type: 'invalid_request_error',
          message: `Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length ${tools} instead.`,
        };
      }
      const image = chatToolImageError(req.body) ?? chatUserImageError(req.body);
      if (image) return { status: 400, type: 'invalid_request_error', message: image };
      const over = window.over(req);
      if (over) {
        return {
          status: 400,
          type: 'invalid_request_error',
          code: 'context_length_exceeded',
          param: 'messages',
          message: `This model's maximum context length is ${over.window} tokens. However, your messages resulted in ${over.tokens} tokens. Please reduce the length of the messages.`,
        };
      }
      return checkParameters(req.body) ?? checkReasoningReplay(req.body, issued, family);
    },
    encode: (reply, res, req) => encodeChatReply(reply, res, req, issued, family),
    encodeError: writeOpenAIError,
  });
  return { ...server, setContextWindow: window.setContextWindow, inputTokens: window.inputTokens };
}

/** OpenAI's reasoning models refuse the deprecated `max_tokens`, as the service does. */
function checkParameters(body: any): NonNullable<FakeReply['error']> | undefined {
  if (typeof body?.model !== 'string' || !/(^|\/)(o\d+|gpt-5)([-.:]|$)/i.test(body.model) || body.max_tokens === undefined) return undefined;
  return { status: 400, type: 'invalid_request_error', message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead." };
}

export type ChatFakeFamily = 'openai' | 'deepseek' | 'xai';

/** Reasoning the fake streamed, by the reply it came with: `call:<id>` for each tool call, else `text:<content>`. */
type IssuedReasoning = Map<string, string>;

/**
 * DeepSeek in thinking mode: an assistant message with tool calls must carry the
 * `reasoning_content` the server streamed with those calls, else the request is refused. With
 * `deepseek`, the rule covers the whole user turn (from one user message to the next) in which the
 * model called tools: every assistant message of it, the final text-only answer included.
 */
function checkReasoningReplay(body: any, issued: IssuedReasoning, family: ChatFakeFamily): NonNullable<FakeReply['error']> | undefined {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  let turnStart = 0;
  for (let i = 0; i <= messages.length; i++) {
    if (i < messages.length && messages[i].role !== 'user') continue;
    const turn = messages.slice(turnStart, i);
    const toolTurn = turn.some((m) => m.role === 'assistant' && Array.isArray(m.tool_calls));
    for (let j = 0; j < turn.length; j++) {
      const m = turn[j];
      if (m.role !== 'assistant') continue;
      const calls = Array.isArray(m.tool_calls) ? m.tool_calls : [];
      if (calls.length === 0 && !(family === 'deepseek' && toolTurn)) continue;
      const keys = calls.length > 0 ? calls.map((c: any) => `call:${c.id}`) : [`text:${m.content ?? ''}`];
      const expected = keys.map((k: string) => issued.get(k)).find((r: string | undefined) => r !== undefined);
      if (expected !== undefined && typeof m.reasoning_content !== 'string') {
        return { status: 400, type: 'invalid_request_error', message: `Missing \`reasoning_content\` field in the assistant message at message index ${turnStart + j}.` };
      }
    }
    turnStart = i + 1;
  }
  return undefined;
}

/** OpenAI's error JSON shape; 429s carry a tiny retry-after-ms so SDK retries stay fast. */
export function writeOpenAIError(error: NonNullable<FakeReply['error']>, res: http.ServerResponse): void {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (error.status === 429) headers['retry-after-ms'] = '5';
  res.writeHead(error.status, headers);
  res.end(
    JSON.stringify({
      error: { message: error.message, type: error.type ?? defaultType(error.status), param: error.param ?? null, code: error.code ?? error.type ?? null },
    }),
  );
}

function defaultType(status: number): string {
  if (status === 401) return 'invalid_api_key';
  if (status === 429) return 'rate_limit_exceeded';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/**
 * Destroys the socket only after everything written so far reached the client, so the cut lands
 * mid-stream (after the 200 and some deltas) rather than before the response began.
 */
export async function cutAfterFlush(res: http.ServerResponse): Promise<void> {
  await new Promise<void>((resolve) => res.write(': flush\n\n', () => resolve()));
  await sleep(20);
  res.destroy();
}

let completionCounter = 0;

async function encodeChatReply(reply: FakeReply, res: http.ServerResponse, req: RecordedRequest, issued: IssuedReasoning, family: ChatFakeFamily): Promise<void> {
  const n = ++completionCounter;
  const id = `chatcmpl-fake${n}`;
  let reasoning = '';
  let content = '';
  let called = false;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model: 'fake-model',
    choices,
    ...extra,
  });
  const delta = (d: Record<string, unknown>, finish: string | null = null) => chunk([{ index: 0, delta: d, finish_reason: finish }]);

  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  writeSse(res, undefined, delta({ role: 'assistant', content: '' }));
  let toolIndex = 0;
  for (const step of reply.steps ?? []) {
    if ('cut' in step) {
      await cutAfterFlush(res);
      return;
    }
    if (isPause(step)) {
      if (!(await pause(step, res))) return;
    } else if ('text' in step) {
      content += step.text;
      writeSse(res, undefined, delta({ content: step.text }));
    } else if ('refusal' in step) {
      // A model refusal streams in its own field; `content` stays null in those chunks.
      if (step.whole) writeSse(res, undefined, chunk([{ index: 0, message: { role: 'assistant', content: null, refusal: step.refusal }, finish_reason: null }]));
      else writeSse(res, undefined, delta({ content: null, refusal: step.refusal }));
    } else if ('thinking' in step) {
      reasoning += step.thinking;
      writeSse(res, undefined, delta({ reasoning_content: step.thinking }));
    } else if ('toolCall' in step) {
      const index = toolIndex++;
      const callId = step.toolCall.id ?? `call_fake_${n}_${index}`;
      called = true;
      if (reasoning) issued.set(`call:${callId}`, reasoning);
      const args = argsText(step.toolCall.args);
      const half = Math.ceil(args.length / 2);
      writeSse(res, undefined, delta({ tool_calls: [{ index, id: callId, type: 'function', function: { name: step.toolCall.name, arguments: '' } }] }));
      writeSse(res, undefined, delta({ tool_calls: [{ index, function: { arguments: args.slice(0, half) } }] }));
      writeSse(res, undefined, delta({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] }));
    }
  }
  if (reasoning && !called) issued.set(`text:${content}`, reasoning);
  const stop = stopReasonOf(reply);
  const finish = stop === 'tool_use' ? 'tool_calls' : stop === 'max_tokens' ? 'length' : stop === 'refusal' ? 'content_filter' : 'stop';
  writeSse(res, undefined, delta({}, finish));
  // Without a scripted usage, report a realistic prompt size (~4 characters a token) as a real server would.
  const u = reply.usage ?? { input: Math.ceil(JSON.stringify(req.body ?? '').length / 4), output: 5 };
  const cached = u.cacheRead ?? 0;
  const reasoningTokens = u.reasoning ?? 0;
  writeSse(
    res,
    undefined,
    chunk([], {
      usage: {
        prompt_tokens: u.input + cached,
        // xAI leaves the reasoning tokens out of completion_tokens (but not out of total_tokens).
        completion_tokens: family === 'xai' ? u.output - reasoningTokens : u.output,
        ...(u.noTotal ? {} : { total_tokens: u.input + cached + u.output }),
        prompt_tokens_details: { cached_tokens: cached },
        completion_tokens_details: { reasoning_tokens: reasoningTokens },
      },
    }),
  );
  writeSse(res, undefined, '[DONE]');
  res.end();
}
