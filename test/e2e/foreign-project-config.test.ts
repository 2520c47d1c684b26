/**
 * Another account's project config is not the user's: a `.keen/config.json` or `.mcp.json` owned
 * by uid 65534 (the tests run as root, so root-owned files are the user's own), or sitting in a
 * folder of that account, is ignored with one warning line — its rules do not apply and its MCP
 * servers do not start, even with `--trust`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorLines, toolResults, useCliRig } from './cli-fixtures.js';

const { rig, workspace } = useCliRig();
const OTHER = 65534;

describe("another account's project config", () => {
  it('a .keen/config.json owned by another account is ignored with one warning', async () => {
    const ws = workspace({ 'notes.txt': 'PLAIN-NOTES\n', '.keen/config.json': JSON.stringify({ permissions: { deny: ['read_file'] } }) });
    fs.chownSync(path.join(ws.cwd, '.keen/config.json'), OTHER, OTHER);
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'read_file', args: { path: 'notes.txt' } } }] }, { steps: [{ text: 'read' }] });
    const r = await rig.keen(ws, ['run', 'read it']);
    expect(r.code).toBe(0);
    expect(toolResults(rig.fake.requests[from + 1])[0].text).toContain('PLAIN-NOTES');
    expect(errorLines(r.stderr)).toEqual([expect.stringMatching(/project config .*\.keen\/config\.json: ignored: it is owned by another user \(uid 65534\)/)]);
  });

  it('a .keen folder of another account makes its config count for nothing', async () => {
    const ws = workspace({ 'notes.txt': 'PLAIN-NOTES\n', '.keen/config.json': JSON.stringify({ permissions: { deny: ['read_file'] } }) });
    fs.chownSync(path.join(ws.cwd, '.keen'), OTHER, OTHER);
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'read_file', args: { path: 'notes.txt' } } }] }, { steps: [{ text: 'read' }] });
    const r = await rig.keen(ws, ['run', 'read it']);
    expect(toolResults(rig.fake.requests[from + 1])[0].text).toContain('PLAIN-NOTES');
    expect(errorLines(r.stderr)).toEqual([expect.stringMatching(/ignored: its folder .*\.keen is owned by another user/)]);
  });

  it('an .mcp.json of another account starts no server, even with --trust', async () => {
    const marker = 'MCP-STARTED';
    const ws = workspace({ '.mcp.json': JSON.stringify({ mcpServers: { planted: { command: 'sh', args: ['-c', `touch ${marker}; sleep 5`] } } }) });
    fs.chownSync(path.join(ws.cwd, '.mcp.json'), OTHER, OTHER);
    rig.fake.enqueue({ steps: [{ text: 'hi' }] });
    const r = await rig.keen(ws, ['run', '--trust', 'hello']);
    expect(r.code).toBe(0);
    expect(fs.existsSync(path.join(ws.cwd, marker))).toBe(false);
  });

  it('a .keen/config.json of another account starts no server in `keen mcp list --trust` either', async () => {
    const marker = 'MCP-LISTED';
    const ws = workspace({ '.keen/config.json': JSON.stringify({ mcpServers: { planted: { command: 'sh', args: ['-c', `touch ${marker}`] } } }) });
    fs.chownSync(path.join(ws.cwd, '.keen/config.json'), OTHER, OTHER);
    const r = await rig.keen(ws, ['mcp', 'list', '--trust']);
    expect(r.code).toBe(0);
    expect(fs.existsSync(path.join(ws.cwd, marker))).toBe(false);
    expect(r.stdout).not.toContain('planted');
  });
});

describe('a project config file that is no plain file of the project', () => {
  it('a .keen/config.json linking out of the project is ignored: what it points at is not read, nor quoted', async () => {
    const ws = workspace();
    // Any file of the user's outside the project: a JSON error would quote its first characters.
    fs.writeFileSync(path.join(ws.root, 'token.txt'), 'ghp_e2eNotARealToken0000000000\n');
    fs.mkdirSync(path.join(ws.cwd, '.keen'));
    fs.symlinkSync('../../token.txt', path.join(ws.cwd, '.keen/config.json'));
    rig.fake.enqueue({ steps: [{ text: 'hi' }] });
    const r = await rig.keen(ws, ['run', 'hello']);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('ghp_');
    expect(errorLines(r.stderr)).toEqual([expect.stringMatching(/project config .*\.keen\/config\.json: ignored: it leads outside .* \(to .*token\.txt\)/)]);
  });

  it('an .mcp.json that is a FIFO does not hang the run', async () => {
    const ws = workspace();
    execFileSync('mkfifo', [path.join(ws.cwd, '.mcp.json')]);
    rig.fake.enqueue({ steps: [{ text: 'hi' }] });
    const r = await rig.keen(ws, ['run', '--trust', 'hello']);
    expect(r.code).toBe(0);
  });
});
