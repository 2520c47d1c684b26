import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FakeReply, RecordedRequest, Responder } from './script.js';
import { sleep } from './script.js';

/** Writes one scripted reply in a protocol's wire format. */
export type ReplyEncoder = (reply: FakeReply, res: http.ServerResponse, req: RecordedRequest) => Promise<void>;

export interface ScriptedServer {
  /** e.g. http://127.0.0.1:PORT */
  url: string;
  /** Every request received, in order, with its parsed JSON body. */
  requests: RecordedRequest[];
  /** Queue replies; each request takes the next one. */
  enqueue(...replies: FakeReply[]): void;
  /** Used when the queue is empty. Default: a 500 error naming the request. */
  setResponder(responder: Responder | undefined): void;
  close(): Promise<void>;
}

export interface ScriptedServerOptions {
  encode: ReplyEncoder;
  /** Writes an HTTP error reply in the protocol's error shape. */
  encodeError: (error: NonNullable<FakeReply['error']>, res: http.ServerResponse) => void;
  /** Only these request paths are scripted; others get 404. Default: all. */
  accepts?: (method: string, path: string) => boolean;
  /**
   * The service's own checks on a request (e.g. a replayed reasoning signature it never issued):
   * an error here answers the request before the script is consulted, so no reply is used up.
   */
  validate?: (req: RecordedRequest) => NonNullable<FakeReply['error']> | undefined;
}

/** A loopback HTTP/1.1 server answering each request with the next scripted reply. */
export async function startScriptedServer(opts: ScriptedServerOptions): Promise<ScriptedServer> {
  const queue: FakeReply[] = [];
  const requests: RecordedRequest[] = [];
  let responder: Responder | undefined;
  const sockets = new Set<import('node:net').Socket>();

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown = raw;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      /* keep the raw text */
    }
    const path = req.url ?? '/';
    if (opts.accepts && !opts.accepts(req.method ?? 'GET', path)) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${path}` } }));
      return;
    }
    const recorded: RecordedRequest = { method: req.method ?? 'GET', path, headers: req.headers, body };
    requests.push(recorded);
    const index = requests.length - 1;
    const refused = opts.validate?.(recorded);
    if (refused) {
      opts.encodeError(refused, res);
      return;
    }
    const reply = queue.shift() ?? responder?.(recorded, index);
    try {
      if (!reply) {
        opts.encodeError({ status: 500, message: `fake: no scripted reply for request #${index + 1}` }, res);
        return;
      }
      if (reply.delayMs) await sleep(reply.delayMs);
      if (reply.until) await reply.until;
      if (reply.error) {
        opts.encodeError(reply.error, res);
        return;
      }
      if (reply.raw) {
        res.writeHead(reply.raw.status, { 'content-type': reply.raw.contentType, ...reply.raw.headers });
        res.end(reply.raw.body);
        return;
      }
      await opts.encode(reply, res, recorded);
    } catch {
      res.destroy();
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...replies) => queue.push(...replies),
    setResponder: (r) => {
      responder = r;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Writes a step list as SSE; `frame` maps a step to zero or more (event, data) pairs. */
export function writeSse(res: http.ServerResponse, event: string | undefined, data: unknown): void {
  const payload = typeof data === 'string' ? data : JSON.stringify(data);
  res.write(`${event ? `event: ${event}\n` : ''}data: ${payload}\n\n`);
}
