import { describe, expect, it } from 'vitest';
import { promptStateFromRecords } from '../../src/agent/prompt-state.js';
import { nextPrompt, renderSections, type PromptSection } from '../../src/project/prompt-sections.js';
import { removedSection } from '../../src/project/system-prompt.js';
import type { SessionRecord } from '../../src/transcript/records.js';

const base: PromptSection[] = [
  { key: 'base', text: 'You are Keen.' },
  { key: 'env', text: '# Environment\nWorking directory: /p' },
  { key: 'date', text: 'Date: 2026-12-01', line: true },
  { key: 'git', text: 'Git status:\n## main', line: true },
];
const withGit = (status: string) => base.map((s) => (s.key === 'git' ? { ...s, text: `Git status:\n${status}` } : s));

describe('nextPrompt: one system prompt per session', () => {
  it('the first turn writes the prompt; an unchanged turn sends no reminder', () => {
    const first = nextPrompt(undefined, base, removedSection);
    expect(first.system).toEqual(base);
    expect(renderSections(first.state.snapshot)).toBe('You are Keen.\n\n# Environment\nWorking directory: /p\nDate: 2026-12-01\nGit status:\n## main');
    const second = nextPrompt(first.state, base, removedSection);
    expect(second).toEqual({ state: first.state });
  });

  it('a changed git status goes into a reminder once, the prompt stays', () => {
    const first = nextPrompt(undefined, base, removedSection).state;
    const edited = nextPrompt(first, withGit('## main\n M a.ts'), removedSection);
    expect(edited.system).toBeUndefined();
    expect(edited.state.snapshot).toBe(first.snapshot);
    expect(edited.reminder?.text).toBe(
      '<system-reminder>\nThis changed since the system prompt was written and replaces what it says there:\n\nGit status:\n## main\n M a.ts\n</system-reminder>\n\n',
    );
    // The model knows it now: the same status next turn sends nothing.
    expect(nextPrompt(edited.state, withGit('## main\n M a.ts'), removedSection).reminder).toBeUndefined();
  });

  it('plan mode on and off; a fixed section (another base) writes a new prompt', () => {
    const first = nextPrompt(undefined, base, removedSection).state;
    const plan = nextPrompt(first, [...base, { key: 'mode', text: '# Mode\nPlan mode is on.' }], removedSection);
    expect(plan.reminder?.text).toContain('# Mode\nPlan mode is on.');
    const build = nextPrompt(plan.state, base, removedSection);
    expect(build.reminder?.text).toContain('# Mode\nPlan mode is off');
    const other = nextPrompt(build.state, [{ key: 'base', text: 'Other.' }, ...base.slice(1)], removedSection);
    expect(other.system?.[0].text).toBe('Other.');
    expect(other.reminder).toBeUndefined();
  });
});

describe('promptStateFromRecords: a resumed session goes on with its prompt', () => {
  const env = { ts: '2026-12-01T00:00:00.000Z' };
  it('the stored prompt and the reminders since; a compaction falls back to the prompt; old transcripts have none', () => {
    const edited = withGit('## main\n M a.ts');
    const records: SessionRecord[] = [
      { ...env, seq: 1, kind: 'user_message', message: { role: 'user', content: 'one' }, system: base },
      { ...env, seq: 2, kind: 'user_message', message: { role: 'user', content: 'two' }, reminder: { text: 'R', sections: [edited[3]] } },
    ];
    expect(promptStateFromRecords(records)).toEqual({ snapshot: base, known: edited });
    const compacted: SessionRecord[] = [...records, { ...env, seq: 3, kind: 'compaction_applied', mode: 'auto', status: '', messages: [] }];
    expect(promptStateFromRecords(compacted)).toEqual({ snapshot: base, known: base });
    expect(promptStateFromRecords([{ ...env, seq: 1, kind: 'user_message', message: { role: 'user', content: 'old' } }])).toBeUndefined();
  });
});
