import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { once } from '../../src/core/lazy.js';
import { TokenEstimator } from '../../src/tokens/token-estimator.js';
import { createDefaultRegistry, defaultTools } from '../../src/tools/index.js';
import { createHeadlessGate, createSessionGate } from '../../src/tools/permissions/index.js';
import { CANCELLED, createToolRegistry, defineTool, ToolError } from '../../src/tools/registry.js';
import type { PermissionRequest } from '../../src/tools/types.js';
import { call } from './helpers.js';
import { tempProject } from '../kit/temp-dir.js';

const echo = defineTool({
  name: 'echo',
  description: 'Echo text.',
  schema: z.object({ text: z.string(), times: z.number().int().min(1).default(1) }),
  mutating: false,
  async run(args) {
    return args.text.repeat(args.times);
  },
});

describe('tool registry', () => {
  it('lists all eight default tools with JSON Schemas for their input', () => {
    const defs = createDefaultRegistry().definitions();
    expect(defs.map((d) => d.name)).toEqual(['read_file', 'write_file', 'edit_file', 'glob', 'grep', 'bash', 'list_dir', 'web_fetch']);
    const read = defs.find((d) => d.name === 'read_file')!;
    expect(read.input_schema).toMatchObject({ type: 'object', required: ['path'] });
    expect(read.input_schema).not.toHaveProperty('$schema');
    expect(read.description.length).toBeGreaterThan(40);
    const edit = defs.find((d) => d.name === 'edit_file')!;
    // replace_all has a default, so the model may omit it.
    expect(edit.input_schema.required).toEqual(['path', 'old_string', 'new_string']);
  });

  it('every turn gets the same frozen definitions: counted once by the estimator, and no caller can change the next request', () => {
    const registry = createDefaultRegistry();
    const estimator = new TokenEstimator();
    const first = registry.definitions();
    const second = registry.definitions();
    expect(estimator.tools(first)).toBe(estimator.tools(second));
    expect(estimator.stats.toolDefinitionsCounted).toBe(first.length);
    // A caller may extend its own array (MCP tools join it)…
    second.push({ name: 'extra', description: 'x', input_schema: { type: 'object' } });
    expect(registry.definitions()).toHaveLength(first.length);
    // …but not the definitions themselves.
    expect(() => {
      (first[0].input_schema as Record<string, unknown>).type = 'string';
    }).toThrow(TypeError);
    expect(registry.definitions()[0].input_schema).toMatchObject({ type: 'object' });
  });

  it('runs a valid call and applies schema defaults', async () => {
    const registry = createToolRegistry([echo]);
    const msg = await call('/', 'echo', { text: 'ab', times: 2 }, { registry });
    expect(msg).toEqual({ role: 'tool', tool_call_id: msg.tool_call_id, name: 'echo', content: 'abab' });
    expect((await call('/', 'echo', { text: 'x' }, { registry })).content).toBe('x');
  });

  it('builds a schema given as a function at its first use, once, and validates calls with it', async () => {
    let built = 0;
    const schema = once(() => {
      built++;
      return z.object({ n: z.number().int() });
    });
    const lazy = defineTool({
      name: 'lazy',
      description: 'Lazy.',
      schema,
      mutating: false,
      async run(args) {
        return String(args.n + 1);
      },
    });
    const registry = createToolRegistry([lazy]);
    registry.definitions();
    expect(built).toBe(1); // not in the build's table: its definition is converted from the schema
    expect((await call('/', 'lazy', { n: 1 }, { registry })).content).toBe('2');
    expect((await call('/', 'lazy', { n: 1.5 }, { registry })).content).toMatch(/^Invalid arguments for lazy: n:/);
    expect(built).toBe(1);
  });

  it('every built-in tool builds its zod schema at its first use: sending the definitions builds none', () => {
    for (const tool of defaultTools()) expect(Object.getOwnPropertyDescriptor(tool, 'schema')?.get, tool.name).toBeTypeOf('function');
  });

  it('reports arguments that are not JSON', async () => {
    const msg = await call('/', 'echo', '{"text": ', { registry: createToolRegistry([echo]) });
    expect(msg.is_error).toBe(true);
    expect(msg.content).toMatch(/^Invalid arguments for echo: not valid JSON \(.+\)\.$/);
  });

  it('treats empty arguments as an empty object and names the missing field', async () => {
    const msg = await call('/', 'echo', '', { registry: createToolRegistry([echo]) });
    expect(msg).toMatchObject({ is_error: true, content: 'Invalid arguments for echo: text is required.' });
  });

  it('names every field that fails the schema', async () => {
    const msg = await call('/', 'echo', { text: 5, times: 0 }, { registry: createToolRegistry([echo]) });
    expect(msg.is_error).toBe(true);
    expect(msg.content).toContain('Invalid arguments for echo: text: Invalid input: expected string, received number');
    expect(msg.content).toContain('times: Too small');
  });

  it('refuses arguments that are JSON but not an object', async () => {
    const msg = await call('/', 'echo', '[1,2]', { registry: createToolRegistry([echo]) });
    expect(msg).toMatchObject({ is_error: true, content: 'Invalid arguments for echo: expected a JSON object.' });
  });

  it('answers an unknown tool with the list of known tools', async () => {
    const msg = await call('/', 'rm_rf', {}, { registry: createToolRegistry([echo]) });
    expect(msg).toMatchObject({ is_error: true, name: 'rm_rf', content: 'Unknown tool "rm_rf". Available tools: echo.' });
  });

  it('turns a throwing tool into an error result; ToolError messages go through verbatim', async () => {
    const boom = defineTool({
      name: 'boom',
      description: 'Fails.',
      schema: z.object({ expected: z.boolean() }),
      mutating: false,
      async run(args) {
        if (args.expected) throw new ToolError('That file is not there.');
        throw new Error('disk\n  on fire');
      },
    });
    const registry = createToolRegistry([boom]);
    expect(await call('/', 'boom', { expected: true }, { registry })).toMatchObject({
      is_error: true,
      content: 'That file is not there.',
    });
    expect(await call('/', 'boom', { expected: false }, { registry })).toMatchObject({
      is_error: true,
      content: 'boom failed: disk on fire',
    });
  });

  it('returns "cancelled" without running when the signal is already aborted', async () => {
    let ran = false;
    const t = defineTool({
      name: 't',
      description: 'd',
      schema: z.object({}),
      mutating: false,
      async run() {
        ran = true;
        return 'ran';
      },
    });
    const ac = new AbortController();
    ac.abort();
    const msg = await call('/', 't', {}, { registry: createToolRegistry([t]), signal: ac.signal });
    expect(msg).toMatchObject({ is_error: true, content: CANCELLED });
    expect(ran).toBe(false);
  });

  it('returns "cancelled" promptly when aborted mid-run, even if the tool ignores the signal', async () => {
    const ac = new AbortController();
    // The tool never finishes: the call ends at all only if the abort ends it.
    const stuck = defineTool({
      name: 'stuck',
      description: 'd',
      schema: z.object({}),
      mutating: false,
      run: () => {
        ac.abort();
        return new Promise<string>(() => {});
      },
    });
    const msg = await call('/', 'stuck', {}, { registry: createToolRegistry([stuck]), signal: ac.signal });
    expect(msg).toMatchObject({ is_error: true, content: 'cancelled' });
  });

  it('asks the gate before a mutating tool and reports a denial naming --yolo and permissions.allow', async () => {
    const dir = tempProject();
    const asked: PermissionRequest[] = [];
    const deny = { check: async (r: PermissionRequest) => (asked.push(r), 'deny' as const) };
    const msg = await call(dir, 'write_file', { path: 'a.txt', content: 'x\n' }, { permissions: deny });
    expect(msg.is_error).toBe(true);
    expect(msg.content).toBe('Permission denied: write_file needs approval. Run with --yolo or allow it in config (permissions.allow), e.g. "write_file".');
    expect(asked).toEqual([
      {
        tool: 'write_file',
        summary: 'write a.txt (1 line, new file)',
        detail: expect.stringContaining('+x'),
        access: 'write',
        paths: [path.join(dir, 'a.txt')],
        cwd: dir,
        // The call the question is about: a front end names its card by the id.
        call: { id: expect.any(String), name: 'write_file', args: JSON.stringify({ path: 'a.txt', content: 'x\n' }) },
      },
    ]);
  });

  it('reads inside the workspace run without a question; the gate sees their real path', async () => {
    const dir = tempProject({ 'a.txt': 'hi\n' });
    const asked: PermissionRequest[] = [];
    const gate = createSessionGate(async (r) => (asked.push(r), 'deny'));
    const msg = await call(dir, 'read_file', { path: 'a.txt' }, { permissions: gate });
    expect(msg.is_error).toBeUndefined();
    expect(asked).toEqual([]);
  });

  it('a read-only tool without describe is never judged', async () => {
    const quiet = defineTool({ name: 'quiet', description: 'q', schema: z.object({}), mutating: false, run: async () => 'ok' });
    const gate = { check: async () => expect.fail('asked about a read-only tool') };
    const msg = await call('/', 'quiet', {}, { registry: createToolRegistry([quiet]), permissions: gate as never });
    expect(msg.content).toBe('ok');
  });

  it('refuses an edit that cannot apply before anyone is asked', async () => {
    const dir = tempProject({ 'a.txt': 'hello\n' });
    let asked = 0;
    const gate = { check: async () => (asked++, 'allow' as const) };
    const msg = await call(dir, 'edit_file', { path: 'a.txt', old_string: 'absent', new_string: 'x' }, { permissions: gate });
    expect(msg.is_error).toBe(true);
    expect(msg.content).toContain('old_string was not found in a.txt');
    expect(asked).toBe(0);
  });

  it('uses the headless gate wording when denied by the headless gate', async () => {
    const dir = tempProject();
    const msg = await call(dir, 'bash', { command: 'npm test' }, { permissions: createHeadlessGate({ yolo: false, allow: [] }) });
    expect(msg.content).toBe('Permission denied: bash needs approval. Run with --yolo or allow it in config (permissions.allow), e.g. "bash(npm test)".');
  });
});
