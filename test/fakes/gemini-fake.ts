import type http from 'node:http';
import type { FakeReply, FakeStep, RecordedRequest } from './script.js';
import { sleep, stopReasonOf } from './script.js';
import type { ScriptedServer } from './scripted-server.js';
import { startScriptedServer, writeSse } from './scripted-server.js';

const STREAM_PATH = /^\/v1beta\/models\/([^/:]+):streamGenerateContent\?alt=sse$/;

/**
 * A loopback Gemini API speaking `POST /v1beta/models/<model>:streamGenerateContent?alt=sse`:
 * each step is one SSE `GenerateContentResponse` chunk (text, `thought` text, `functionCall`),
 * the last chunk carries `finishReason` and `usageMetadata`. Errors use Google's error JSON
 * (`{error:{code,message,status}}`). Like the service, it refuses a request without an API key.
 */
export async function startGeminiFake(): Promise<ScriptedServer> {
  return startScriptedServer({
    accepts: (method, path) => method === 'POST' && STREAM_PATH.test(path),
    encodeError: writeGoogleError,
    encode: async (reply, res, req) => {
      if (!req.headers['x-goog-api-key']) {
        writeGoogleError({ status: 403, message: "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API." }, res);
        return;
      }
      await writeGeminiStream(reply, res);
    },
  });
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
  res.end(JSON.stringify({ error: { code: error.status, message: error.message, status } }, null, 2));
}

const FINISH: Record<string, string> = { end_turn: 'STOP', tool_use: 'STOP', max_tokens: 'MAX_TOKENS' };

function partOf(step: Exclude<FakeStep, { delayMs: number } | { cut: true }>): Record<string, unknown> {
  if ('text' in step) return { text: step.text };
  if ('thinking' in step) return { text: step.thinking, thought: true, ...(step.signature ? { thoughtSignature: step.signature } : {}) };
  const call: Record<string, unknown> = { name: step.toolCall.name, args: step.toolCall.args ?? {} };
  if (step.toolCall.id) call.id = step.toolCall.id;
  return { functionCall: call };
}

async function writeGeminiStream(reply: FakeReply, res: http.ServerResponse): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const chunk = (parts: Record<string, unknown>[], last: boolean) => {
    const candidate: Record<string, unknown> = { content: { role: 'model', parts }, index: 0 };
    const body: Record<string, unknown> = { candidates: [candidate], modelVersion: 'gemini-fake' };
    if (last) {
      candidate.finishReason = FINISH[stopReasonOf(reply)];
      const u = reply.usage ?? { input: 0, output: 0 };
      const cached = u.cacheRead ?? 0;
      // Gemini counts cached tokens inside promptTokenCount.
      const usage: Record<string, number> = {
        promptTokenCount: u.input + cached,
        candidatesTokenCount: u.output,
        totalTokenCount: u.input + cached + u.output,
      };
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
  for (const step of reply.steps ?? []) {
    if ('delayMs' in step) {
      flush();
      await sleep(step.delayMs);
    } else if ('cut' in step) {
      flush();
      await sleep(10); // let the chunks already written reach the client first
      res.socket?.destroy();
      return;
    } else {
      flush();
      pending = partOf(step);
    }
  }
  chunk([pending ?? { text: '' }], true);
  res.end();
}
