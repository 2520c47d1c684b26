/**
 * The real MCP reference servers for the e2e tests, and helpers around their processes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

const MODULES = path.resolve(import.meta.dirname, '../../node_modules/@modelcontextprotocol');
export const EVERYTHING = path.join(MODULES, 'server-everything/dist/index.js');
export const FILESYSTEM = path.join(MODULES, 'server-filesystem/dist/index.js');

/** A stdio entry for server-everything, via a shell that appends its pid to `pidFile` first. */
export function everythingWithPid(pidFile: string): { command: string; args: string[] } {
  return { command: 'sh', args: ['-c', `echo $$ >> "${pidFile}"; exec "${process.execPath}" "${EVERYTHING}" stdio`] };
}

export function everything(): { command: string; args: string[] } {
  return { command: process.execPath, args: [EVERYTHING, 'stdio'] };
}

export function filesystem(root: string): { command: string; args: string[] } {
  return { command: process.execPath, args: [FILESYSTEM, root] };
}

export function writeUserConfig(home: string, config: unknown): void {
  fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify(config));
}

export function pidsIn(file: string): number[] {
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number);
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Wait until `check` holds (polling), or fail after `ms`. */
export async function waitFor(check: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** server-everything speaking Streamable HTTP (or the legacy SSE transport) on a loopback port. */
export async function startEverythingHttp(mode: 'streamableHttp' | 'sse' = 'streamableHttp'): Promise<{ port: number; child: ChildProcess; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += d));
  await waitFor(() => stderr.includes(`port ${port}`), 15_000, `server-everything (${mode}) to listen`);
  return {
    port,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}
