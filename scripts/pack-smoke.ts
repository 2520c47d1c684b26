// The package as users get it: `npm pack` (which builds first), install the tarball into a
// temporary global prefix, then run the installed `keen`: --version, help, a headless turn
// against the loopback Anthropic fake, and a bash call a deny rule refuses (the shell parser
// loads from the installed package). Run by CI (.ci/run) as `npm run test:pack`.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startAnthropicFake } from '../test/fakes/anthropic-fake.js';

const root = path.resolve(import.meta.dirname, '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'keen-pack-'));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function fail(message: string): never {
  throw new Error(`pack smoke test: ${message}`);
}

try {
  const packed = JSON.parse(execFileSync(npm, ['pack', '--json', '--pack-destination', tmp], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }));
  const files: string[] = packed[0].files.map((f: { path: string }) => f.path);
  for (const needed of ['bin/keen.js', 'dist/main.js', 'config.schema.json', 'package.json', 'README.md']) {
    if (!files.includes(needed)) fail(`the tarball lacks ${needed}`);
  }
  const stray = files.filter((f) => /^(src|test|bench|scripts)\//.test(f));
  if (stray.length) fail(`the tarball ships sources: ${stray.slice(0, 5).join(', ')}`);
  console.log(`packed ${packed[0].filename}: ${files.length} files, ${Math.round(packed[0].size / 1024)} KiB`);

  const prefix = path.join(tmp, 'prefix');
  execFileSync(npm, ['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', path.join(tmp, packed[0].filename)], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const keen = path.join(prefix, 'bin', 'keen');
  const home = path.join(tmp, 'home');
  const project = path.join(tmp, 'project');
  fs.mkdirSync(home);
  fs.mkdirSync(project);

  const version = execFileSync(keen, ['--version'], { encoding: 'utf8' }).trim();
  if (version !== pkg.version) fail(`keen --version printed "${version}", expected ${pkg.version}`);
  const help = execFileSync(keen, ['help'], { encoding: 'utf8' });
  if (!/^ {2}run\b/m.test(help)) fail('keen help does not list run');

  const fake = await startAnthropicFake();
  try {
    fake.enqueue({ steps: [{ text: 'Installed and answering.' }] });
    const env = { ...process.env, KEEN_HOME: home, ANTHROPIC_API_KEY: 'sk-pack-smoke', ANTHROPIC_BASE_URL: fake.url, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
    // spawnSync blocks this process's event loop, and with it the fake: run the child asynchronously.
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(keen, args, { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => (stdout += d));
        child.stderr.on('data', (d) => (stderr += d));
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
    const result = await run(['-p', '--output-format', 'json', 'say hello']);
    if (result.code !== 0) fail(`the headless turn exited ${result.code}: ${result.stderr.trim()}`);
    const out = JSON.parse(result.stdout);
    if (out.result !== 'Installed and answering.' || out.is_error !== false) fail(`unexpected result ${result.stdout.trim()}`);
    if (fake.requests.length !== 1) fail(`the fake saw ${fake.requests.length} requests`);

    // A deny rule on bash parses the command with mvdan-sh, resolved from the installed package.
    fake.enqueue({ steps: [{ toolCall: { name: 'bash', args: { command: 'command touch pwned' } } }] }, { steps: [{ text: 'done' }] });
    const denied = await run(['run', '--yolo', '--disallowed-tools', 'bash(touch:*)', 'go']);
    if (denied.code !== 0) fail(`the deny-rule turn exited ${denied.code}: ${denied.stderr.trim()}`);
    if (fs.existsSync(path.join(project, 'pwned'))) fail('bash ran a command a deny rule names');
    if (!JSON.stringify(fake.requests[2]?.body).includes('blocked by the rule \\"bash(touch:*)\\"')) fail('the deny-rule turn did not report the rule');
    // An allow rule allows only what the parser shows it names: this runs only if it loaded.
    fake.enqueue({ steps: [{ toolCall: { name: 'bash', args: { command: 'echo parsed-ok' } } }] }, { steps: [{ text: 'done' }] });
    const allowed = await run(['run', '--allowed-tools', 'bash(echo:*)', 'go']);
    if (allowed.code !== 0) fail(`the allow-rule turn exited ${allowed.code}: ${allowed.stderr.trim()}`);
    const results = (fake.requests[4]?.body?.messages ?? [])
      .flatMap((m: { content: unknown }) => (Array.isArray(m.content) ? m.content : []))
      .filter((b: { type: string }) => b.type === 'tool_result');
    const text = JSON.stringify(results.map((b: { content: unknown }) => b.content));
    if (results.length !== 1 || !text.includes('parsed-ok') || text.includes('Permission denied')) fail(`the allow rule did not allow echo: ${text.slice(0, 300)}`);
  } finally {
    await fake.close();
  }
  console.log(`installed keen ${version} ran --version, help, a headless turn and a deny rule on bash`);
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
