import { contextManagementError, thinkingBudgetError, thinkingFormError } from './thinking-checks.js';
import type http from 'node:http';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import type { FakeReply, RecordedRequest, Responder } from './script.js';
import { argsText, isPause, pause, refusalsAsText, sleep, stopReasonOf } from './script.js';
import { converseImageError } from './image-checks.js';
import type { ScriptedServer } from './scripted-server.js';
import { startScriptedServer } from './scripted-server.js';
import { ContextWindow, type ContextWindowed } from './context-window.js';

/**
 * A loopback Amazon Bedrock Runtime speaking ConverseStream: `POST /model/<modelId>/converse-stream`
 * answered with `application/vnd.amazon.eventstream` frames, errors as AWS JSON errors with an
 * `x-amzn-errortype` header. Like the service, it refuses (400 ValidationException) conversations
 * that start with an assistant turn, whose roles do not alternate, that hold blank text, unanswered
 * tool uses or more than four cache points — before looking at the script, so a refused request
 * consumes no scripted reply. Over-window option (`contextWindow`, `setContextWindow`): a request
 * whose system, messages and tool config exceed the window gets the service's ValidationException.
 */
export async function startBedrockFake(opts: { contextWindow?: number } = {}): Promise<ScriptedServer & ContextWindowed> {
  const issued = new IssuedReasoning();
  const window = new ContextWindow((body) => [body.system ?? [], body.messages ?? [], body.toolConfig ?? {}], opts);
  const server = await startScriptedServer({
    accepts: (method, path) => method === 'POST' && /^\/model\/[^/]+\/converse-stream$/.test(path),
    encodeError: writeAwsError,
    encode: (reply, res) => writeEventStream(reply, res, issued),
  });
  // Validation runs before the script, so a refused request consumes no scripted reply.
  const queue: FakeReply[] = [];
  let responder: Responder | undefined;
  server.setResponder((req, index) => {
    const fields = req.body?.additionalModelRequestFields;
    const invalid =
      validateConverse(req.body) ??
      converseImageError(req.body) ??
      thinkingFormError(modelIdOf(req.path), req.body?.additionalModelRequestFields?.thinking) ??
      thinkingBudgetError(req.body?.additionalModelRequestFields?.thinking, req.body?.inferenceConfig?.maxTokens) ??
      contextManagementError(fields?.context_management, [fields?.anthropic_beta ?? []].flat(), fields?.thinking) ??
      issued.check(req.body) ??
      (window.over(req) ? 'Input is too long for requested model.' : undefined);
    if (invalid) return { error: { status: 400, type: 'ValidationException', message: invalid } };
    return queue.shift() ?? responder?.(req, index) ?? { error: { status: 500, message: `fake: no scripted reply for request #${index + 1}` } };
  });
  return {
    ...server,
    setContextWindow: window.setContextWindow,
    inputTokens: window.inputTokens,
    enqueue: (...replies) => queue.push(...replies),
    setResponder: (r) => {
      responder = r;
    },
  };
}

let signatureSeq = 0;

/** Reasoning this fake sent, so a replay it never issued is refused as Claude on Bedrock does. */
class IssuedReasoning {
  readonly signatures = new Map<string, string>();
  readonly redacted = new Set<string>();

  check(body: any): string | undefined {
    const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
    for (let i = 0; i < messages.length; i++) {
      const content: any[] = Array.isArray(messages[i].content) ? messages[i].content : [];
      for (let j = 0; j < content.length; j++) {
        const r = content[j]?.reasoningContent;
        if (!r) continue;
        if (r.reasoningText && this.signatures.get(r.reasoningText.signature) !== r.reasoningText.text) {
          return `messages.${i}.content.${j}.reasoningContent: the reasoning signature is invalid for this text.`;
        }
        if (r.redactedContent !== undefined && !this.redacted.has(r.redactedContent)) {
          return `messages.${i}.content.${j}.reasoningContent: the redacted content is invalid.`;
        }
      }
    }
    return undefined;
  }
}

/** The model id from a recorded request path (URL-decoded). */
export function bedrockModelOf(req: RecordedRequest): string {
  const m = /^\/model\/([^/]+)\/converse-stream$/.exec(req.path);
  return m ? decodeURIComponent(m[1]) : '';
}

const ERROR_TYPES: Record<number, string> = {
  400: 'ValidationException',
  401: 'UnrecognizedClientException',
  403: 'AccessDeniedException',
  404: 'ResourceNotFoundException',
  429: 'ThrottlingException',
  500: 'InternalServerException',
  503: 'ServiceUnavailableException',
};

function writeAwsError(error: NonNullable<FakeReply['error']>, res: http.ServerResponse): void {
  // Protocol-neutral scripts may carry another API's error type; AWS names end in "Exception".
  const scripted = error.type && /Exception$/.test(error.type) ? error.type : undefined;
  const type = scripted ?? ERROR_TYPES[error.status] ?? 'InternalServerException';
  res.writeHead(error.status, {
    'content-type': 'application/json',
    'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    'x-amzn-requestid': 'fake-request-id',
  });
  res.end(JSON.stringify({ message: error.message }));
}

/** The service's own checks on a Converse request; returns its error message, or undefined. */
export function validateConverse(body: any): string | undefined {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  if (messages.length === 0) return 'The messages field is required: provide at least one message.';
  if (messages[0].role !== 'user') {
    return 'A conversation must start with a user message. Try again with a conversation that starts with a user message.';
  }
  let cachePoints = countCachePoints(body?.system) + countCachePoints(body?.toolConfig?.tools);
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (i > 0 && messages[i - 1].role === m.role) {
      return 'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.';
    }
    const content: any[] = Array.isArray(m.content) ? m.content : [];
    if (content.length === 0) return `The content field in the Message object at messages.${i} is empty.`;
    cachePoints += countCachePoints(content);
    for (let j = 0; j < content.length; j++) {
      if ('text' in content[j] && !String(content[j].text).trim()) {
        return `The text field in the ContentBlock object at messages.${i}.content.${j} is blank. Add text to the text field, and try again.`;
      }
    }
    if (m.role === 'assistant') {
      const uses = content.filter((b) => b.toolUse).map((b) => b.toolUse.toolUseId as string);
      if (uses.length === 0) continue;
      if (!body?.toolConfig) return 'The toolConfig field must be defined when using toolUse and toolResult content blocks.';
      const next: any[] = messages[i + 1]?.content ?? [];
      const answered = new Set(next.filter((b) => b.toolResult).map((b) => b.toolResult.toolUseId as string));
      const missing = uses.filter((id) => !answered.has(id));
      if (i + 1 < messages.length && missing.length > 0) {
        return `Expected toolResult blocks at messages.${i + 1}.content for the following Ids: ${missing.join(', ')}`;
      }
    }
  }
  if (cachePoints > 4) return `A maximum of 4 cache points may be provided. Found ${cachePoints}.`;
  return undefined;
}

function countCachePoints(blocks: unknown): number {
  return Array.isArray(blocks) ? blocks.filter((b) => b && typeof b === 'object' && 'cachePoint' in b).length : 0;
}

const codec = new EventStreamCodec(
  (bytes) => new TextDecoder().decode(bytes),
  (text) => new TextEncoder().encode(text),
);

function frame(eventType: string, payload: unknown): Uint8Array {
  return codec.encode({
    headers: {
      ':event-type': { type: 'string', value: eventType },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'event' },
    },
    body: new TextEncoder().encode(JSON.stringify(payload)),
  });
}

async function writeEventStream(reply: FakeReply, res: http.ServerResponse, issued: IssuedReasoning): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': 'fake-request-id' });
  const send = (type: string, payload: unknown) => res.write(frame(type, payload));
  send('messageStart', { role: 'assistant' });
  let index = -1;
  let open: 'text' | 'reasoning' | undefined;
  const close = () => {
    if (open) send('contentBlockStop', { contentBlockIndex: index });
    open = undefined;
  };
  let toolSeq = 0;
  for (const step of refusalsAsText(reply)) {
    if (isPause(step)) {
      if (!(await pause(step, res))) return;
    } else if ('cut' in step) {
      await sleep(10); // let the frames already written reach the client first
      res.socket?.destroy();
      return;
    } else if ('text' in step) {
      if (open !== 'text') {
        close();
        index++;
        open = 'text';
      }
      send('contentBlockDelta', { contentBlockIndex: index, delta: { text: step.text } });
    } else if ('thinking' in step) {
      if (open !== 'reasoning') {
        close();
        index++;
        open = 'reasoning';
      }
      send('contentBlockDelta', { contentBlockIndex: index, delta: { reasoningContent: { text: step.thinking } } });
      // Claude on Bedrock signs every reasoning block.
      const signature = step.signature ?? `sig-bedrock-${++signatureSeq}`;
      issued.signatures.set(signature, step.thinking);
      send('contentBlockDelta', { contentBlockIndex: index, delta: { reasoningContent: { signature } } });
    } else if ('redacted' in step) {
      close();
      index++;
      issued.redacted.add(step.redacted);
      // A blob travels base64-encoded in the JSON payload of an event.
      send('contentBlockDelta', { contentBlockIndex: index, delta: { reasoningContent: { redactedContent: step.redacted } } });
      send('contentBlockStop', { contentBlockIndex: index });
    } else {
      close();
      index++;
      const id = step.toolCall.id ?? `tooluse_${++toolSeq}`;
      send('contentBlockStart', { contentBlockIndex: index, start: { toolUse: { toolUseId: id, name: step.toolCall.name } } });
      const json = argsText(step.toolCall.args);
      const cut = Math.floor(json.length / 2);
      for (const part of [json.slice(0, cut), json.slice(cut)]) {
        if (part) send('contentBlockDelta', { contentBlockIndex: index, delta: { toolUse: { input: part } } });
      }
      send('contentBlockStop', { contentBlockIndex: index });
    }
  }
  close();
  // Bedrock declines with `guardrail_intervened` (a guardrail's blocked message is the text) or `content_filtered`.
  const stop = stopReasonOf(reply);
  send('messageStop', { stopReason: stop === 'refusal' ? (reply.refusal?.native ?? 'guardrail_intervened') : stop });
  const u = reply.usage ?? { input: 0, output: 0 };
  const usage: Record<string, number> = {
    inputTokens: u.input,
    outputTokens: u.output,
    totalTokens: u.input + u.output + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0),
  };
  if (u.cacheRead !== undefined) usage.cacheReadInputTokens = u.cacheRead;
  if (u.cacheWrite !== undefined) usage.cacheWriteInputTokens = u.cacheWrite;
  send('metadata', { usage, metrics: { latencyMs: 1 } });
  res.end();
}

const AWS_ENV_VARS = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
  'AWS_PROFILE',
  'AWS_CONFIG_FILE',
  'AWS_SHARED_CREDENTIALS_FILE',
  'AWS_EC2_METADATA_DISABLED',
  'AWS_ENDPOINT_URL',
  'AWS_ENDPOINT_URL_BEDROCK_RUNTIME',
  'AWS_BEARER_TOKEN_BEDROCK',
];

/** Fake static keys (AKIDTEST, region us-east-1) and nothing else of this machine: no profile, no shared files, no instance metadata. */
export const FAKE_AWS_ENV: Readonly<Record<string, string>> = {
  AWS_ACCESS_KEY_ID: 'AKIDTEST',
  AWS_SECRET_ACCESS_KEY: 'test-secret',
  AWS_REGION: 'us-east-1',
  AWS_CONFIG_FILE: '/nonexistent/keen-test/aws-config',
  AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/keen-test/aws-credentials',
  AWS_EC2_METADATA_DISABLED: 'true',
};

/**
 * Points the SDK's default credential chain at fake static keys (AKIDTEST, region us-east-1) and
 * at nothing else on this machine: no profile, no shared files, no instance metadata. `extra`
 * overrides any variable. Returns a function that restores the previous environment.
 */
export function useFakeAwsEnv(extra: Record<string, string> = {}): () => void {
  const saved = new Map(AWS_ENV_VARS.concat(Object.keys(extra)).map((k) => [k, process.env[k]]));
  for (const k of AWS_ENV_VARS) delete process.env[k];
  Object.assign(process.env, { ...FAKE_AWS_ENV, ...extra });
  return () => {
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}

/** The model id in a Converse path (`/model/<id>/converse-stream`). */
function modelIdOf(path: string): string {
  const m = /\/model\/([^/]+)\//.exec(path);
  return m ? decodeURIComponent(m[1]) : '';
}
