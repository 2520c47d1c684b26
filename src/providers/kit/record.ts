import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scrubBase64 } from '../../security/scrubber.js';
import { redactSecrets, redactText, secretValues } from '../../transcript/redact.js';
import { sdkFetch } from '../../net/http-fetch.js';

/**
 * Record mode: with `KEEN_RECORD=DIR`, every provider request and the raw bytes of its streamed
 * response are saved as one JSON file in DIR, so a real session can become a regression test
 * (the loopback fakes replay such files: test/fakes/recording.ts). Request headers are never
 * saved (they carry the credentials); request bodies are redacted as transcripts are (Keen's
 * credential values and credential-named variables of the environment, and well-known formats: a
 * key the user pasted, a token a tool printed); the response bytes are saved as received, so a
 * fake can replay them exactly — a model that repeats a secret leaves it there.
 */

/** One saved exchange. `response_base64` is the response body exactly as it came off the wire. */
export interface Recording {
  format: 'keen-recording-1';
  provider: string;
  method: string;
  url: string;
  /** The request body: parsed JSON when it was JSON, else the text. */
  request: unknown;
  status: number;
  content_type: string;
  response_base64: string;
  /** True when the response stream broke before its end (the bytes up to the break are kept). */
  truncated?: boolean;
}

let sequence = 0;

/** The directory to record into, or undefined when record mode is off. */
export function recordDir(env: NodeJS.ProcessEnv): string | undefined {
  const dir = env.KEEN_RECORD?.trim();
  return dir ? dir : undefined;
}

/**
 * Writes one recording, the request body redacted as a transcript is (`secrets`: the exact values
 * to remove, `secretValues(env)`; well-known formats always). A failure to write never breaks
 * the session.
 */
export function saveRecording(dir: string, recording: Recording, secrets: readonly string[] = []): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const name = `${Date.now()}-${process.pid}-${String(++sequence).padStart(4, '0')}-${recording.provider}.json`;
    const saved = {
      ...recording,
      url: redactText(recording.url, secrets),
      request: redactSecrets(recording.request, secrets),
      response_base64: scrubBase64(recording.response_base64, secrets),
    };
    writeFileSync(join(dir, name), `${JSON.stringify(saved, null, 2)}\n`, { mode: 0o600 });
  } catch {
    /* record mode is best effort */
  }
}

export function parseBody(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * A `fetch` for SDKs that accept one (Anthropic, OpenAI): the response body is teed, one branch
 * to the SDK untouched, the other saved when it ends. Undefined when record mode is off.
 */
export function recordingFetch(env: NodeJS.ProcessEnv, provider: string, send: typeof fetch = sdkFetch(env), keys: readonly (string | undefined)[] = []): typeof fetch | undefined {
  const dir = recordDir(env);
  if (!dir) return undefined;
  // The environment's credentials and the keys this adapter uses (a config apiKeyEnv may name any variable).
  const secrets = secretValues(
    env,
    keys.filter((k): k is string => !!k),
  );
  return async (input, init) => {
    const res = await send(input, init);
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const base = {
      format: 'keen-recording-1' as const,
      provider,
      method: init?.method ?? 'GET',
      url,
      request: parseBody(typeof init?.body === 'string' ? init.body : undefined),
      status: res.status,
      content_type: res.headers.get('content-type') ?? '',
    };
    if (!res.body) {
      saveRecording(dir, { ...base, response_base64: '' }, secrets);
      return res;
    }
    // The bytes are kept as they pass to the SDK and saved before the SDK sees the end, so a
    // process that exits right after its last reply has written every recording.
    const chunks: Uint8Array[] = [];
    const keep = (truncated: boolean) => saveRecording(dir, { ...base, response_base64: Buffer.concat(chunks).toString('base64'), ...(truncated ? { truncated } : {}) }, secrets);
    const reader = res.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            keep(false);
            controller.close();
            return;
          }
          chunks.push(value);
          controller.enqueue(value);
        } catch (err) {
          keep(true);
          controller.error(err);
        }
      },
      cancel(reason) {
        keep(true);
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
