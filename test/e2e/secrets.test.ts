/**
 * Credentials never reach the user's screen or disk by accident: a 401 that quotes the key, a
 * base URL with credentials in it, and the opposite failure, over-eager redaction that turned
 * ordinary paths into [REDACTED].
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorLines, FAKE_KEY, filesUnder, storedSessionId, toolResults, useCliRig } from './cli-fixtures.js';

const { rig, workspace } = useCliRig();

describe('secrets in errors and output', () => {
  it('a 401 quoting the key prints neither in the error line nor in the JSON object', async () => {
    const ws = workspace();
    rig.fake.enqueue({ error: { status: 401, type: 'authentication_error', message: `invalid x-api-key: ${FAKE_KEY}` } });
    const text = await rig.keen(ws, ['run', 'hi']);
    expect(text.code).toBe(1);
    expect(errorLines(text.stderr)).toHaveLength(1);
    expect(text.stderr + text.stdout).not.toContain(FAKE_KEY);

    rig.fake.enqueue({ error: { status: 401, type: 'authentication_error', message: `invalid x-api-key: ${FAKE_KEY}` } });
    const json = await rig.keen(ws, ['run', '--format', 'json', 'hi']);
    expect(json.code).toBe(1);
    const out = JSON.parse(json.stdout);
    expect(out.is_error).toBe(true);
    expect(out.error.kind).toBe('auth');
    expect(json.stdout + json.stderr).not.toContain(FAKE_KEY);
    for (const file of filesUnder(ws.home)) expect(fs.readFileSync(file, 'utf8')).not.toContain(FAKE_KEY);
  });

  it('credentials inside a base URL are not printed', async () => {
    const ws = workspace();
    fs.writeFileSync(path.join(ws.home, 'config.json'), JSON.stringify({ maxRetries: 0 }));
    const r = await rig.keen(ws, ['run', 'hi'], { env: { ANTHROPIC_BASE_URL: 'http://proxyuser:pw-e2e-0451@127.0.0.1:9/' } });
    expect(r.code).toBe(1);
    expect(errorLines(r.stderr)).toHaveLength(1);
    expect(r.stderr).not.toContain('pw-e2e-0451');
    expect(r.stderr).not.toContain('proxyuser');
  });

  it('a variable whose name contains KEY holding the working directory does not mangle paths (transcript and resumed request)', async () => {
    const ws = workspace({ 'src/app.ts': 'export const x = 1;\n' });
    const env = { PROJECT_KEY_DIR: ws.cwd, BUILD_TOKEN_FILE: path.join(ws.cwd, 'src/app.ts') };
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'bash', args: { command: 'pwd; ls src' } } }] }, { steps: [{ text: 'It is app.ts.' }] });
    const first = await rig.keen(ws, ['run', '--yolo', `what is in ${ws.cwd}/src?`], { env });
    expect(first.code).toBe(0);
    const transcript = filesUnder(path.join(ws.home, 'sessions')).find((f) => f.endsWith('transcript_events.jsonl'))!;
    const bytes = fs.readFileSync(transcript, 'utf8');
    expect(bytes).not.toContain('[REDACTED]');
    expect(bytes).toContain(JSON.stringify(ws.cwd));

    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'Still app.ts.' }] });
    const second = await rig.keen(ws, ['run', '--session', storedSessionId(ws.home)!, 'and now?'], { env });
    expect(second.code).toBe(0);
    const resumed = rig.since(from)[0];
    expect(JSON.stringify(resumed.body)).toContain(`what is in ${ws.cwd}/src?`);
    expect(toolResults(resumed)[0].text).toContain(ws.cwd);
  });
});
