import type http from 'node:http';
import type { FakeReply, FakeStep, RecordedRequest } from './script.js';
import { isPause, pause, refusalsAsText, sleep, stopReasonOf, type PauseStep } from './script.js';
import { geminiImageError } from './image-checks.js';
import type { ScriptedServer } from './scripted-server.js';
import { startScriptedServer, writeSse } from './scripted-server.js';
import { ContextWindow, type ContextWindowed } from './context-window.js';

const STREAM_PATH = /^\/v1beta\/models\/([^/:]+):streamGenerateContent\?alt=sse$/;

/**
 * A loopback Gemini API speaking `POST /v1beta/models/<model>:streamGenerateContent?alt=sse`:
 * each step is one SSE `GenerateContentResponse` chunk (text, `thought` text, `functionCall`),
 * the last chunk carries `finishReason` and `usageMetadata`. Errors use Google's error JSON
 * (`{error:{code,message,status}}`; a 429 with a retry hint adds the service's `details`). Like the service, it refuses a request without an API key.
 * Over-window option (`contextWindow`, `setContextWindow`): a request whose system instruction,
 * contents and tools exceed the window gets the service's 400 INVALID_ARGUMENT.
 */
export async function startGeminiFake(opts: { contextWindow?: number } = {}): Promise<ScriptedServer & ContextWindowed> {
  const signatures = new Map<string, string>();
  const window = new ContextWindow((body) => [body.systemInstruction ?? '', body.contents ?? [], body.tools ?? []], opts);
  const server = await startScriptedServer({
    accepts: (method, path) => method === 'POST' && STREAM_PATH.test(path),
    validate: (req) => {
      const over = window.over(req);
      if (over) return { status: 400, message: `The input token count (${over.tokens}) exceeds the maximum number of tokens allowed (${over.window}).` };
      const image = geminiImageError(req.body);
      return image ? { status: 400, message: image } : checkSignatures(req.body, signatures);
    },
    encodeError: writeGoogleError,
    encode: async (reply, res, req) => {
      if (!req.headers['x-goog-api-key']) {
        writeGoogleError(
          {
            status: 403,
            message:
              "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
          },
          res,
        );
        return;
      }
      await writeGeminiStream(reply, res, signatures);
    },
  });
  return { ...server, setContextWindow: window.setContextWindow, inputTokens: window.inputTokens };
}

/** The model name from a recorded request path. */
export function geminiModelOf(req: RecordedRequest): string {
  return STREAM_PATH.exec(req.path)?.[1] ?? '';
}

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

function writeGoogleError(error: NonNullable<FakeReply['error']>, res: http.ServerResponse): void {
  res.writeHead(error.status, { 'content-type': 'application/json; charset=UTF-8' });
  // Protocol-neutral scripts may carry another API's error type; Google statuses are UPPER_SNAKE.
  const status = error.type && /^[A-Z_]+$/.test(error.type) ? error.type : (STATUS_NAMES[error.status] ?? 'UNKNOWN');
  const details = error.retryDelay ? quotaDetails(error.retryDelay) : undefined;
  const message = error.retryDelay ? `${error.message}\nPlease retry in ${error.retryDelay}.` : error.message;
  res.end(JSON.stringify({ error: { code: error.status, message, status, ...(details ? { details } : {}) } }, null, 2));
}

/**
 * What the Gemini API sends with a quota 429: a help link, the quota that ran out, and
 * `google.rpc.RetryInfo` with the wait as a protobuf Duration.
 */
function quotaDetails(retryDelay: string): unknown[] {
  return [
    {
      '@type': 'type.googleapis.com/google.rpc.Help',
      links: [{ description: 'Learn more about Gemini API quotas', url: 'https://ai.google.dev/gemini-api/docs/rate-limits' }],
    },
    {
      '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
      violations: [
        {
          quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
          quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier',
          quotaDimensions: { model: 'gemini-fake', location: 'global' },
          quotaValue: '5',
        },
      ],
    },
    { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay },
  ];
}

/**
 * Gemini with thinking: a function call it sent with a `thoughtSignature` must come back with
 * that signature on the same part, else the request is refused. Calls are matched by name and
 * arguments (Gemini often sends no call id).
 */
function checkSignatures(body: any, signatures: Map<string, string>): NonNullable<FakeReply['error']> | undefined {
  const contents: any[] = Array.isArray(body?.contents) ? body.contents : [];
  for (let i = 0; i < contents.length; i++) {
    if (contents[i].role !== 'model') continue;
    const parts: any[] = contents[i].parts ?? [];
    for (let j = 0; j < parts.length; j++) {
      const call = parts[j].functionCall;
      const wanted = call ? signatures.get(callKey(call)) : undefined;
      if (wanted !== undefined && parts[j].thoughtSignature !== wanted) {
        return {
          status: 400,
          message: `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${call.name}\` , position ${j + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
        };
      }
    }
  }
  return undefined;
}

function callKey(call: { name?: string; args?: unknown }): string {
  return `${call.name}:${JSON.stringify(call.args ?? {})}`;
}

let signatureSeq = 0;

const FINISH: Record<string, string> = { end_turn: 'STOP', tool_use: 'STOP', max_tokens: 'MAX_TOKENS', refusal: 'SAFETY' };

/** Gemini's safety ratings: every category rated, the blocked ones HIGH with `blocked: true`. */
function safetyRatings(blocked: readonly string[]): Record<string, unknown>[] {
  const categories = ['HARM_CATEGORY_SEXUALLY_EXPLICIT', 'HARM_CATEGORY_HATE_SPEECH', 'HARM_CATEGORY_HARASSMENT', 'HARM_CATEGORY_DANGEROUS_CONTENT'];
  return categories.map((category) => (blocked.includes(category) ? { category, probability: 'HIGH', blocked: true } : { category, probability: 'NEGLIGIBLE' }));
}

function partOf(step: Exclude<FakeStep, PauseStep | { cut: true } | { redacted: string } | { refusal: string }>): Record<string, unknown> {
  if ('text' in step) return { text: step.text };
  if ('thinking' in step) return { text: step.thinking, thought: true };
  const call: Record<string, unknown> = { name: step.toolCall.name, args: step.toolCall.args ?? {} };
  if (step.toolCall.id) call.id = step.toolCall.id;
  return { functionCall: call };
}

async function writeGeminiStream(reply: FakeReply, res: http.ServerResponse, signatures: Map<string, string>): Promise<void> {
  // As Gemini does with thinking: the signature of the reasoning rides on the first function-call
  // part after it (or, without a call, on the first text part after it), never on the thought.
  let owed: string | undefined;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  if (reply.refusal?.prompt) {
    // A blocked prompt: one chunk with the feedback and the prompt's usage, and no candidates.
    const blockReason = reply.refusal.native ?? 'PROHIBITED_CONTENT';
    const input = reply.usage?.input ?? 0;
    writeSse(res, undefined, { promptFeedback: { blockReason }, usageMetadata: { promptTokenCount: input, totalTokenCount: input }, modelVersion: 'gemini-fake' });
    res.end();
    return;
  }
  const chunk = (parts: Record<string, unknown>[], last: boolean) => {
    const candidate: Record<string, unknown> = { content: { role: 'model', parts }, index: 0 };
    const body: Record<string, unknown> = { candidates: [candidate], modelVersion: 'gemini-fake' };
    if (last) {
      const stop = stopReasonOf(reply);
      candidate.finishReason = stop === 'refusal' ? (reply.refusal?.native ?? 'SAFETY') : FINISH[stop];
      // A blocked candidate carries the ratings that blocked it, and no content when nothing was said.
      if (stop === 'refusal') {
        candidate.safetyRatings = safetyRatings(reply.refusal?.blocked ?? []);
        if (parts.length === 1 && parts[0].text === '') delete candidate.content;
      }
      const u = reply.usage ?? { input: 0, output: 0 };
      const cached = u.cacheRead ?? 0;
      // Gemini counts cached tokens inside promptTokenCount.
      const usage: Record<string, number> = {
        promptTokenCount: u.input + cached,
        // Thinking tokens are counted apart from the candidates' tokens.
        candidatesTokenCount: u.output - (u.reasoning ?? 0),
        totalTokenCount: u.input + cached + u.output,
      };
      if (u.reasoning) usage.thoughtsTokenCount = u.reasoning;
      if (u.cacheRead !== undefined) usage.cachedContentTokenCount = cached;
      body.usageMetadata = usage;
    }
    writeSse(res, undefined, body);
  };
  // The final content chunk carries finishReason and usage, as the service does.
  let pending: Record<string, unknown> | undefined;
  const flush = () => {
    if (pending) chunk([pending], false);
    pending = undefined;
  };
  const steps = refusalsAsText(reply);
  for (const step of steps) {
    if (isPause(step)) {
      flush();
      if (!(await pause(step, res))) return;
    } else if ('cut' in step) {
      flush();
      await sleep(10); // let the chunks already written reach the client first
      res.socket?.destroy();
      return;
    } else if ('redacted' in step) {
    } else {
      flush();
      pending = partOf(step);
      if ('thinking' in step) owed ??= step.signature ?? `thought-sig-${++signatureSeq}`;
      else if (owed && ('toolCall' in step || !steps.some((s) => 'toolCall' in s))) {
        pending.thoughtSignature = owed;
        if ('toolCall' in step) signatures.set(callKey(pending.functionCall as { name: string; args: unknown }), owed);
        owed = undefined;
      }
    }
  }
  chunk([pending ?? { text: '' }], true);
  res.end();
}
