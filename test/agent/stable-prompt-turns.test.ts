/**
 * One process, several turns: the system prompt and the tool list a session sends stay
 * byte-identical while the project changes under it (an edit by the model, one by the user between
 * turns), and what changed reaches the model as a reminder ahead of the newest user message. The
 * real AppState and SessionController with the production prompt builder, over the Anthropic and
 * OpenAI Responses adapters and their fakes; the fakes record each request as sent.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppState } from '../../src/agent/app-state.js';
import { SessionController } from '../../src/agent/session-controller.js';
import { removedSection, systemPromptSections } from '../../src/project/system-prompt.js';
import { createDefaultRegistry } from '../../src/tools/index.js';
import { SessionStore } from '../../src/transcript/store.js';
import type { RecordedRequest } from '../fakes/script.js';
import { collect } from '../kit/events.js';
import { makeClient } from '../loop/loop-harness.js';
import { PROVIDER_CASES, stripCacheMarkers } from '../providers/conformance-cases.js';
import { useProviderRig } from '../providers/provider-rig.js';

const git = (cwd: string, ...args: string[]) => spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd, encoding: 'utf8' });

/** The text of a wire message's content: a string, or its text blocks joined. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b: any) => (typeof b?.text === 'string' && b.type !== 'tool_result' ? b.text : '')).join('');
}

describe.each(PROVIDER_CASES.filter((pc) => pc.name === 'anthropic' || pc.name === 'openai-responses'))('$name: a session in one process', (pc) => {
  const rig = useProviderRig(pc, (cwd) => {
    fs.writeFileSync(path.join(cwd, 'a.txt'), 'one\n');
    git(cwd, 'init', '-q', '-b', 'main');
    git(cwd, 'add', '-A');
    git(cwd, 'commit', '-qm', 'init');
  });
  let store: SessionStore | undefined;
  afterEach(async () => store?.close());

  /** The newest user message of a request: the user's own text, whatever the wire calls it. */
  const newestUserText = (req: RecordedRequest): string => {
    const users = pc.parts(req.body).messages.filter((m: any) => m.role === 'user' && textOf(m.content) !== '');
    return textOf(users.at(-1)?.content);
  };

  it('edits between turns leave the system prompt and tools byte-identical; the fresh git status arrives as a reminder', async () => {
    const cwd = rig.cwd;
    store = await SessionStore.create(rig.home, { cwd, provider: pc.name, model: 'test-model', keenVersion: 'test' });
    const appState = new AppState({
      client: makeClient(await pc.adapter(rig.fake, rig.home), { cwd }),
      registry: createDefaultRegistry(),
      model: 'test-model',
      maxOutputTokens: 1000,
      sessionId: store.id,
      buildSystemPrompt: () => systemPromptSections({ cwd }),
      removedSection,
    });
    const controller = new SessionController(appState, store);

    // Turn 1: the model edits a.txt.
    rig.fake.enqueue({ steps: [{ toolCall: { id: 'w1', name: 'write_file', args: { path: 'a.txt', content: 'two\n' } } }] }, { steps: [{ text: 'Edited.' }] });
    await collect(controller.chat('change a.txt'));
    // Turn 2 after the edit: the status changed.
    rig.fake.enqueue({ steps: [{ text: 'Seen.' }] });
    await collect(controller.chat('what changed?'));
    // Between turns the user adds a file of their own.
    fs.writeFileSync(path.join(cwd, 'b.txt'), 'mine\n');
    rig.fake.enqueue({ steps: [{ text: 'Seen again.' }] });
    await collect(controller.chat('and now?'));
    // Nothing changed since: no reminder.
    rig.fake.enqueue({ steps: [{ text: 'Same.' }] });
    await collect(controller.chat('anything else?'));

    const sent = rig.fake.requests;
    expect(sent).toHaveLength(5);
    const first = pc.parts(sent[0].body);
    expect(JSON.stringify(first.system)).toContain('Git status:\\n## main');
    expect(JSON.stringify(first.system)).not.toContain('a.txt');
    for (const req of sent.slice(1)) {
      const parts = pc.parts(req.body);
      expect(JSON.stringify(parts.system)).toBe(JSON.stringify(first.system));
      expect(JSON.stringify(parts.tools)).toBe(JSON.stringify(first.tools));
    }
    // Each request repeats the one before it as a prefix (only cache breakpoints move).
    for (let i = 1; i < sent.length; i++) {
      const before = stripCacheMarkers(pc.parts(sent[i - 1].body).messages);
      expect(stripCacheMarkers(pc.parts(sent[i].body).messages).slice(0, before.length)).toEqual(before);
    }

    expect(newestUserText(sent[0])).toBe('change a.txt');
    const second = newestUserText(sent[2]);
    expect(second).toMatch(/^<system-reminder>\n/);
    expect(second).toContain('Git status:\n## main\n M a.txt');
    expect(second.endsWith('</system-reminder>\n\nwhat changed?')).toBe(true);
    const third = newestUserText(sent[3]);
    expect(third).toContain(' M a.txt\n?? b.txt');
    expect(third.endsWith('</system-reminder>\n\nand now?')).toBe(true);
    expect(newestUserText(sent[4])).toBe('anything else?');
  });
});
