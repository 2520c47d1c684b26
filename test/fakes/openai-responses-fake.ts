import { mkdir, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { cutAfterFlush, writeOpenAIError } from './openai-chat-fake.js';
import { argsText, isPause, pause, stopReasonOf, type FakeReply, type RecordedRequest } from './script.js';
import { responsesImageError } from './image-checks.js';
import { ContextWindow, type ContextWindowed } from './context-window.js';
import { startScriptedServer, writeSse, type ScriptedServer } from './scripted-server.js';

/**
 * A loopback Responses API server speaking the real SSE events: response.created, then per item
 * response.output_item.added / *.delta / response.output_item.done, then response.completed (or
 * response.incomplete for max_tokens) with usage. Serves `/v1/responses`, `/responses` and the
 * Codex path `/backend-api/codex/responses`.
 *
 * Script mapping: consecutive `text` steps form one assistant message item; a `thinking` step is a
 * reasoning item whose summary is the text and whose `encrypted_content` is the step's signature
 * (default `enc:<base64 of the text>`); a `toolCall` is a function_call item, its arguments sent in
 * two deltas. Usage: input_tokens = input + cacheRead, input_tokens_details.cached_tokens = cacheRead.
 *
 * Without a scripted usage, the prompt is cached the service's way: routed by the session's cache
 * key (`prompt_cache_key`, on the Codex path the `session_id` header first), a request whose
 * instructions and leading input items repeat an earlier request with the same key reports
 * those tokens as cached; without a key nothing is (the service spreads keyless requests).
 *
 * Over-window option (`contextWindow`, `setContextWindow`): a request whose instructions, input
 * and tools exceed the window is refused with `context_length_exceeded` — as a 400 without
 * `stream`, and with it the way the service streams it: 200, `response.created`, then
 * `response.failed` carrying the error (what the Codex CLI handles as a full window).
 */
export async function startOpenAIResponsesFake(opts: { contextWindow?: number } = {}): Promise<ScriptedServer & ContextWindowed> {
  const issued = new Map<string, IssuedReasoning>();
  const cache = new PromptCache();
  const window = new ContextWindow((body) => [body.instructions ?? '', body.input ?? [], body.tools ?? []], opts);
  const inStream = new WeakSet<object>();
  const server = await startScriptedServer({
    accepts: (method, path) => method === 'POST' && /^((\/v1)?|\/backend-api\/codex)\/responses(\?|$)/.test(path),
    validate: (req) => {
      const image = responsesImageError(req.body);
      if (image) return { status: 400, type: 'invalid_request_error', message: image };
      if (window.over(req)) {
        const error = { status: 400, type: 'invalid_request_error', code: 'context_length_exceeded', param: 'input', message: OVER_WINDOW };
        if (req.body?.stream === true) inStream.add(error);
        return error;
      }
      return checkReasoningReplay(req.body, issued);
    },
    encode: (reply, res, req) => encodeResponsesReply(reply, res, req, issued, cache.cachedTokens(req)),
    encodeError: (error, res) => (inStream.has(error) ? writeFailedStream(error, res) : writeOpenAIError(error, res)),
  });
  return { ...server, setContextWindow: window.setContextWindow, inputTokens: window.inputTokens };
}

const OVER_WINDOW = 'Your input exceeds the context window of this model. Please adjust your input and try again.';

/** A streamed request the service refuses after accepting it: created, then failed with the error. */
function writeFailedStream(error: NonNullable<FakeReply['error']>, res: http.ServerResponse): void {
  const id = `resp_fake${++responseCounter}`;
  const response = (status: string, failure: unknown) => ({
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    output: [],
    incomplete_details: null,
    error: failure,
  });
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  writeSse(res, 'response.created', { type: 'response.created', sequence_number: 0, response: response('in_progress', null) });
  writeSse(res, 'response.failed', { type: 'response.failed', sequence_number: 1, response: response('failed', { code: error.code, message: error.message }) });
  res.end();
}

/** A reasoning item this fake sent: its id and the item that followed it in the output. */
interface IssuedReasoning {
  id: string;
  next?: { type: string; call_id?: string };
}

/**
 * What the service refuses with `store: false`: encrypted reasoning it never issued, and a
 * reasoning item not followed by the item it led to (a reordered replay).
 */
function checkReasoningReplay(body: any, issued: Map<string, IssuedReasoning>): NonNullable<FakeReply['error']> | undefined {
  const input: any[] = Array.isArray(body?.input) ? body.input : [];
  for (let i = 0; i < input.length; i++) {
    const item = input[i];
    if (item?.type !== 'reasoning') continue;
    const known = issued.get(item.encrypted_content);
    if (!known) return { status: 400, type: 'invalid_request_error', message: 'The encrypted content for this reasoning item could not be verified.' };
    const after = input[i + 1];
    const follows = known.next && after?.type === known.next.type && (known.next.type !== 'function_call' || after.call_id === known.next.call_id);
    if (known.next && !follows) {
      return { status: 400, type: 'invalid_request_error', message: `Item '${known.id}' of type 'reasoning' was provided without its required following item.` };
    }
  }
  return undefined;
}

let responseCounter = 0;

/** Prompts seen per cache key: what a later request with the same key finds cached. */
class PromptCache {
  private readonly seen = new Map<string, { instructions: unknown; input: string[] }[]>();

  /** Tokens (~4 characters each) of the longest cached prefix of this request; remembers it. */
  cachedTokens(req: RecordedRequest): number {
    const header = req.path.startsWith('/backend-api/codex') ? req.headers.session_id : undefined;
    const key = typeof header === 'string' ? header : req.body?.prompt_cache_key;
    if (typeof key !== 'string' || !key) return 0;
    const input: string[] = (Array.isArray(req.body?.input) ? req.body.input : []).map((item: unknown) => JSON.stringify(item));
    const instructions = req.body?.instructions;
    const earlier = this.seen.get(key) ?? [];
    let best = 0;
    for (const prev of earlier) {
      if (prev.instructions !== instructions || prev.input.length > input.length) continue;
      if (prev.input.every((item, i) => item === input[i])) best = Math.max(best, Math.floor((JSON.stringify(instructions ?? '').length + prev.input.join(',').length) / 4));
    }
    earlier.push({ instructions, input });
    this.seen.set(key, earlier);
    return best;
  }
}

async function encodeResponsesReply(reply: FakeReply, res: http.ServerResponse, req: RecordedRequest, issued: Map<string, IssuedReasoning>, cachedTokens: number): Promise<void> {
  let lastReasoning: IssuedReasoning | undefined;
  const followed = (type: string, call_id?: string) => {
    if (lastReasoning) lastReasoning.next = { type, ...(call_id ? { call_id } : {}) };
    lastReasoning = undefined;
  };
  const responseId = `resp_fake${++responseCounter}`;
  let seq = 0;
  const send = (type: string, data: Record<string, unknown>) => writeSse(res, type, { type, sequence_number: seq++, ...data });
  const output: Record<string, unknown>[] = [];
  const base = (status: string) => ({
    id: responseId,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    model: typeof req.body?.model === 'string' ? req.body.model : 'fake-model',
    output: status === 'in_progress' ? [] : output,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    incomplete_details: null,
    error: null,
  });

  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  send('response.created', { response: base('in_progress') });
  send('response.in_progress', { response: base('in_progress') });

  let open: { id: string; index: number; text: string } | undefined;
  const closeMessage = () => {
    if (!open) return;
    const { id, index, text } = open;
    const part = { type: 'output_text', text, annotations: [] };
    send('response.output_text.done', { item_id: id, output_index: index, content_index: 0, text, logprobs: [] });
    send('response.content_part.done', { item_id: id, output_index: index, content_index: 0, part });
    const item = { id, type: 'message', status: 'completed', role: 'assistant', content: [part] };
    send('response.output_item.done', { output_index: index, item });
    output.push(item);
    open = undefined;
  };

  for (const step of reply.steps ?? []) {
    if ('cut' in step) {
      await cutAfterFlush(res);
      return;
    }
    if (isPause(step)) {
      if (await pause(step, res)) continue;
      return;
    }
    if ('redacted' in step) continue;
    if ('refusal' in step) {
      closeMessage();
      followed('message');
      const id = `msg_fake${output.length}`;
      const index = output.length;
      send('response.output_item.added', { output_index: index, item: { id, type: 'message', status: 'in_progress', role: 'assistant', content: [] } });
      send('response.content_part.added', { item_id: id, output_index: index, content_index: 0, part: { type: 'refusal', refusal: '' } });
      send('response.refusal.delta', { item_id: id, output_index: index, content_index: 0, delta: step.refusal });
      send('response.refusal.done', { item_id: id, output_index: index, content_index: 0, refusal: step.refusal });
      const part = { type: 'refusal', refusal: step.refusal };
      send('response.content_part.done', { item_id: id, output_index: index, content_index: 0, part });
      const item = { id, type: 'message', status: 'completed', role: 'assistant', content: [part] };
      send('response.output_item.done', { output_index: index, item });
      output.push(item);
      continue;
    }
    if ('text' in step) {
      if (!open) {
        followed('message');
        open = { id: `msg_fake${output.length}`, index: output.length, text: '' };
        send('response.output_item.added', {
          output_index: open.index,
          item: { id: open.id, type: 'message', status: 'in_progress', role: 'assistant', content: [] },
        });
        send('response.content_part.added', {
          item_id: open.id,
          output_index: open.index,
          content_index: 0,
          part: { type: 'output_text', text: '', annotations: [] },
        });
      }
      open.text += step.text;
      send('response.output_text.delta', { item_id: open.id, output_index: open.index, content_index: 0, delta: step.text, logprobs: [] });
      continue;
    }
    closeMessage();
    const index = output.length;
    if ('thinking' in step) {
      const id = `rs_fake${index}`;
      send('response.output_item.added', { output_index: index, item: { id, type: 'reasoning', summary: [] } });
      // Like the service: one summary part per paragraph, each streamed on its own.
      const summary = step.thinking.split('\n\n').map((text) => ({ type: 'summary_text', text }));
      summary.forEach((part, k) => {
        send('response.reasoning_summary_part.added', { item_id: id, output_index: index, summary_index: k, part: { type: 'summary_text', text: '' } });
        send('response.reasoning_summary_text.delta', { item_id: id, output_index: index, summary_index: k, delta: part.text });
        send('response.reasoning_summary_text.done', { item_id: id, output_index: index, summary_index: k, text: part.text });
        send('response.reasoning_summary_part.done', { item_id: id, output_index: index, summary_index: k, part });
      });
      const encrypted = step.signature ?? `enc:${Buffer.from(step.thinking).toString('base64')}`;
      const item = { id, type: 'reasoning', summary, encrypted_content: encrypted };
      send('response.output_item.done', { output_index: index, item });
      output.push(item);
      lastReasoning = { id };
      issued.set(encrypted, lastReasoning);
    } else if ('toolCall' in step) {
      const id = `fc_fake${index}`;
      const callId = step.toolCall.id ?? `call_fake${responseCounter}_${index}`;
      followed('function_call', callId);
      const args = argsText(step.toolCall.args);
      const half = Math.ceil(args.length / 2);
      const item = { id, type: 'function_call', status: 'in_progress', call_id: callId, name: step.toolCall.name, arguments: '' };
      send('response.output_item.added', { output_index: index, item });
      send('response.function_call_arguments.delta', { item_id: id, output_index: index, delta: args.slice(0, half) });
      send('response.function_call_arguments.delta', { item_id: id, output_index: index, delta: args.slice(half) });
      send('response.function_call_arguments.done', { item_id: id, output_index: index, arguments: args });
      const done = { ...item, status: 'completed', arguments: args };
      send('response.output_item.done', { output_index: index, item: done });
      output.push(done);
    }
  }
  closeMessage();

  // Without a scripted usage, report a realistic prompt size (~4 characters a token) as a real server would.
  const prompt = Math.ceil(JSON.stringify(req.body ?? '').length / 4);
  const cachedPrompt = Math.min(cachedTokens, prompt);
  const u = reply.usage ?? { input: prompt - cachedPrompt, output: 5, cacheRead: cachedPrompt };
  const cached = u.cacheRead ?? 0;
  const usage = {
    input_tokens: u.input + cached,
    input_tokens_details: { cached_tokens: cached },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning ?? 0 },
    total_tokens: u.input + cached + u.output,
  };
  const stop = stopReasonOf(reply);
  if (stop === 'max_tokens' || stop === 'refusal') {
    const reason = stop === 'refusal' ? 'content_filter' : 'max_output_tokens';
    send('response.incomplete', { response: { ...base('incomplete'), incomplete_details: { reason }, usage } });
  } else {
    send('response.completed', { response: { ...base('completed'), usage } });
  }
  res.end();
}

/** A base64url, unsigned JWT carrying `claims`: enough for code that only reads the payload. */
export function fakeJwt(claims: Record<string, unknown>): string {
  const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${enc({ alg: 'none', typ: 'JWT' })}.${enc(claims)}.c2ln`;
}

/**
 * Writes a Codex CLI style `auth.json` into `codexHome` (use it as CODEX_HOME): a ChatGPT login
 * for account `acct_123` whose access token is valid for an hour unless `accessToken` is given.
 */
export async function writeFakeCodexAuth(codexHome: string, opts: { accessToken?: string; refreshToken?: string } = {}): Promise<void> {
  const claim = { 'https://api.openai.com/auth': { chatgpt_account_id: 'acct_123' } };
  const file = {
    OPENAI_API_KEY: null,
    auth_mode: 'chatgpt',
    tokens: {
      id_token: fakeJwt({ email: 'dev@example.com', ...claim }),
      access_token: opts.accessToken ?? fakeJwt({ exp: Math.floor(Date.now() / 1000) + 3600, ...claim }),
      refresh_token: opts.refreshToken ?? 'refresh-old-cli',
      account_id: 'acct_123',
    },
    last_refresh: '2025-01-01T00:00:00Z',
  };
  await mkdir(codexHome, { recursive: true });
  await writeFile(`${codexHome}/auth.json`, JSON.stringify(file), { mode: 0o600 });
}

export interface FakeTokenRequest {
  path: string;
  contentType: string;
  /** Parsed JSON or form body. */
  body: Record<string, string>;
}

export interface FakeOAuthServer {
  /** Use as the OAuth issuer: token endpoint at `${url}/oauth/token`. */
  url: string;
  requests: FakeTokenRequest[];
  /** Replaces the default reply (fresh tokens for any grant); undefined restores it. */
  respond(fn: ((req: FakeTokenRequest) => { status: number; body: unknown }) | undefined): void;
  close(): Promise<void>;
}

/**
 * A fake OAuth issuer for Codex sign-in: POST /oauth/token answers both `refresh_token` and
 * `authorization_code` grants with new tokens (access token expiring in an hour, account
 * `acct_fake` in the ChatGPT auth claim).
 */
export async function startFakeOAuthServer(): Promise<FakeOAuthServer> {
  const requests: FakeTokenRequest[] = [];
  let counter = 0;
  const freshTokens = (_req: FakeTokenRequest): { status: number; body: unknown } => {
    counter++;
    const exp = Math.floor(Date.now() / 1000) + 3600;
    const auth = { 'https://api.openai.com/auth': { chatgpt_account_id: 'acct_fake' } };
    return {
      status: 200,
      body: {
        access_token: fakeJwt({ exp, n: counter, ...auth }),
        refresh_token: `refresh-new-${counter}`,
        id_token: fakeJwt({ exp, email: 'dev@example.com', ...auth }),
        expires_in: 3600,
        token_type: 'Bearer',
      },
    };
  };
  let responder = freshTokens;
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const contentType = String(req.headers['content-type'] ?? '');
    let body: Record<string, string> = {};
    try {
      body = contentType.includes('json') ? JSON.parse(raw) : Object.fromEntries(new URLSearchParams(raw));
    } catch {
      /* leave empty */
    }
    const path = req.url ?? '/';
    if (req.method !== 'POST' || !path.startsWith('/oauth/token')) {
      res.writeHead(404).end();
      return;
    }
    const recorded = { path, contentType, body };
    requests.push(recorded);
    const reply = responder(recorded);
    res.writeHead(reply.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(reply.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    respond: (fn) => {
      responder = fn ?? freshTokens;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
