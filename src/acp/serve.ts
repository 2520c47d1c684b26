import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import type { SessionFlags } from '../agent/flags.js';
import { forStream } from '../security/terminal-text.js';
import { keenAgent } from './agent-app.js';

/**
 * Serves ACP on stdin/stdout until the client closes the connection (or a signal ends Keen).
 * stdout carries protocol messages only; warnings go to stderr, which editors keep as the
 * agent's log. Resolves with the exit code.
 */
export async function serveAcp(flags: SessionFlags): Promise<number> {
  const { app, closeAll } = keenAgent({ flags, cwd: process.cwd(), env: process.env, onWarning: (line) => process.stderr.write(forStream(process.stderr, `${line}\n`)) });
  const stream = acp.ndJsonStream(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>);
  const connection = app.connect(stream);
  const stop = () => connection.close();
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(sig, stop);
  await connection.closed.catch(() => undefined);
  await closeAll();
  return 0;
}
