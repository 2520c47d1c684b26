import { Transform, type Readable } from 'node:stream';
import { secretValues } from '../transcript/redact.js';
import { parseBody, recordDir, saveRecording } from './kit/record.js';

/** The part of a Smithy HTTP handler the Bedrock client uses. */
interface HttpHandlerLike {
  handle(request: RequestLike, options?: unknown): Promise<{ response: ResponseLike }>;
  destroy?(): void;
  updateHttpClientConfig?(key: never, value: never): void;
  httpHandlerConfigs?(): unknown;
  metadata?: unknown;
}

interface RequestLike {
  method: string;
  protocol: string;
  hostname: string;
  port?: number;
  path: string;
  body?: unknown;
}

interface ResponseLike {
  statusCode: number;
  headers: Record<string, string>;
  body: unknown;
}

/**
 * Record mode for Bedrock, whose SDK takes no `fetch`: the HTTP handler is wrapped and each
 * response body passes through a recorder on its way to the SDK (the AWS event-stream bytes are
 * saved as received). Undefined when record mode is off.
 */
export async function recordingHandler(env: NodeJS.ProcessEnv, inner: HttpHandlerLike | undefined, http1: boolean): Promise<HttpHandlerLike | undefined> {
  const dir = recordDir(env);
  if (!dir) return undefined;
  const secrets = secretValues(env);
  const mod = await import('@smithy/node-http-handler');
  const base: HttpHandlerLike = inner ?? ((http1 ? new mod.NodeHttpHandler() : new mod.NodeHttp2Handler()) as unknown as HttpHandlerLike);
  return {
    metadata: base.metadata,
    destroy: () => base.destroy?.(),
    updateHttpClientConfig: (key, value) => base.updateHttpClientConfig?.(key, value),
    httpHandlerConfigs: () => base.httpHandlerConfigs?.() ?? {},
    async handle(request, options) {
      const out = await base.handle(request, options);
      const body = out.response.body as Readable | undefined;
      const port = request.port ? `:${request.port}` : '';
      const recording = {
        format: 'keen-recording-1' as const,
        provider: 'bedrock',
        method: request.method,
        url: `${request.protocol}//${request.hostname}${port}${request.path}`,
        request: parseBody(bodyText(request.body)),
        status: out.response.statusCode,
        content_type: out.response.headers['content-type'] ?? '',
      };
      if (!body || typeof body.pipe !== 'function') {
        saveRecording(dir, { ...recording, response_base64: '' }, secrets);
        return out;
      }
      const chunks: Buffer[] = [];
      let saved = false;
      const save = (truncated: boolean) => {
        if (saved) return;
        saved = true;
        saveRecording(dir, { ...recording, response_base64: Buffer.concat(chunks).toString('base64'), ...(truncated ? { truncated } : {}) }, secrets);
      };
      const recorder = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          chunks.push(Buffer.from(chunk));
          done(null, chunk);
        },
        flush(done) {
          save(false);
          done();
        },
      });
      body.on('error', (err) => {
        save(true);
        recorder.destroy(err);
      });
      out.response.body = body.pipe(recorder);
      return out;
    },
  };
}

/** The request body as text: Smithy hands it over as a string or as bytes. */
function bodyText(body: unknown): string | undefined {
  if (typeof body === 'string') return body;
  // As bytes, not through the body's own methods: the AWS SDK's JSON body is a Uint8Array that
  // also answers string methods (valueOf included, which Buffer.from calls) and warns on stderr.
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  return undefined;
}
