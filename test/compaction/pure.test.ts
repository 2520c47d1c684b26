/** The pure parts of the compaction module: document, tail, prune, index, policy, replacement (the trigger: trigger.test.ts). */
import { describe, expect, it } from 'vitest';
import { artifactIndex, collectArtifactRefs, describeOutput, handleText, stripIndex } from '../../src/compaction/artifact-index.js';
import { buildReplacement, prepareCompaction, summaryHead } from '../../src/compaction/compactor.js';
import { buildDocument, cutMiddle } from '../../src/compaction/document.js';
import { fitsSummariser } from '../../src/compaction/policy.js';
import { applyPrunePlan, planPrune } from '../../src/compaction/prune.js';
import { NO_EXTRAS } from '../../src/compaction/settings.js';
import { tailStart } from '../../src/compaction/tail.js';
import type { Message } from '../../src/core/message.js';
import { estimateMessage, estimateText } from '../../src/tokens/token-estimator.js';

const user = (content: string): Message => ({ role: 'user', content });
const asst = (content: string, calls: { id: string; name: string; args: string }[] = []): Message =>
  calls.length ? { role: 'assistant', content, tool_calls: calls } : { role: 'assistant', content };
const tool = (id: string, content: string, artifact_ref?: number): Message => ({
  role: 'tool',
  tool_call_id: id,
  name: 'read_file',
  content,
  ...(artifact_ref ? { artifact_ref } : {}),
});
const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}_${i}`).join(' ');

describe('budgeted document', () => {
  it('cuts tool results to 2,000 and user messages to 8,000 characters, keeping head and tail and stating the cut', () => {
    const doc = buildDocument({
      messages: [user(`HEAD${'u'.repeat(9000)}TAIL`), asst('', [{ id: 'c', name: 'read_file', args: '{"path":"a"}' }]), tool('c', `START${'t'.repeat(5000)}END`)],
      instructions: 'INSTRUCTIONS',
      budget: 1_000_000,
      count: estimateText,
    });
    expect(doc.text).toContain('HEAD');
    expect(doc.text).toContain('TAIL');
    expect(doc.text).toContain('START');
    expect(doc.text).toContain('END');
    expect(doc.text).toContain('[… 1,008 characters cut …]'); // 9,008 − 8,000
    expect(doc.text).toContain('[… 3,008 characters cut …]'); // 5,008 − 2,000
    expect(doc.text).toMatch(/^This is a context compaction/);
    expect(doc.text).toMatch(/<conversation>[\s\S]*<\/conversation>[\s\S]*INSTRUCTIONS$/);
    expect(doc.omitted).toBe(0);
  });

  it('drops whole oldest messages to fit, says how many, and never drops instructions, previous summary or the newest tool output', () => {
    const messages: Message[] = [];
    for (let i = 0; i < 40; i++) messages.push(user(`question ${i} ${words(200, `q${i}`)}`), asst(`answer ${i} ${words(200, `a${i}`)}`));
    messages.push(tool('last', `NEWEST TOOL OUTPUT ${words(300, 'n')}`), asst(`final ${words(100, 'f')}`));
    const doc = buildDocument({ messages, previousSummary: 'PREVIOUS SUMMARY', instructions: 'INSTRUCTIONS focus: FOCUS', budget: 3000, count: estimateText });
    expect(doc.tokens).toBeLessThanOrEqual(3000);
    expect(doc.omitted).toBeGreaterThan(40);
    expect(doc.text).toContain(`[${doc.omitted} earlier messages omitted to fit the summariser window]`);
    expect(doc.text).toContain('NEWEST TOOL OUTPUT');
    expect(doc.text).toContain('<previous-summary>\nPREVIOUS SUMMARY\n</previous-summary>');
    expect(doc.text).toContain('FOCUS');
    expect(doc.text).not.toContain('question 0 ');
    expect(doc.text).toContain('final');
  });

  it('cutMiddle leaves short text alone', () => {
    expect(cutMiddle('short', 10)).toBe('short');
  });
});

describe('verbatim tail', () => {
  const opts = (keepTokens: number, maxBytes = 1_000_000) => ({ keepTokens, maxBytes, count: estimateMessage });
  const history: Message[] = [
    user(words(400, 'old')),
    asst('reading', [{ id: 'a', name: 'read_file', args: '{}' }]),
    tool('a', words(300, 'ra')),
    asst('reading two', [
      { id: 'b', name: 'read_file', args: '{}' },
      { id: 'c', name: 'read_file', args: '{}' },
    ]),
    tool('b', words(100, 'rb')),
    tool('c', words(100, 'rc')),
    asst('done'),
  ];

  it('0 keeps no tail', () => expect(tailStart(history, opts(0))).toBe(history.length));

  it('never starts with a tool result and never separates a call from its results', () => {
    for (let keep = 1; keep < 3000; keep += 37) {
      const cut = tailStart(history, opts(keep));
      if (cut < history.length) expect(history[cut].role).not.toBe('tool');
      const tail = history.slice(cut);
      for (const m of tail) if (m.role === 'tool') expect(tail.some((x) => x.role === 'assistant' && x.tool_calls?.some((c) => c.id === m.tool_call_id))).toBe(true);
    }
  });

  it('keeps at most half of the history and honours the byte cap', () => {
    const cut = tailStart(history, opts(100_000));
    const kept = history.slice(cut).reduce((s, m) => s + estimateMessage(m), 0);
    const total = history.reduce((s, m) => s + estimateMessage(m), 0);
    expect(kept).toBeLessThanOrEqual(total / 2);
    expect(cut).toBeGreaterThan(0);
    // {"role":"assistant","content":"done"} is 36 bytes: a 40-byte cap keeps only it, a 20-byte cap nothing.
    expect(tailStart(history, opts(100_000, 40))).toBe(history.length - 1);
    expect(tailStart(history, opts(100_000, 20))).toBe(history.length);
  });
});

describe('pruning', () => {
  const big = (tag: string) => words(2000, tag); // ~9,700 tokens
  const turn = (i: number): Message[] => [
    user(`turn ${i}`),
    asst('', [{ id: `c${i}`, name: 'read_file', args: `{"path":"f${i}.txt"}` }]),
    tool(`c${i}`, big(`f${i}`), i),
    asst(`read ${i}`),
  ];

  it('prunes old outputs outside the last two user turns and the newest 40,000 tokens, only with artifacts, only when ≥ 20,000 tokens are freed', () => {
    const history = [1, 2, 3, 4, 5, 6, 7].flatMap(turn);
    const plan = planPrune(history, { count: estimateText })!;
    expect(plan).toBeDefined();
    expect(plan.freed).toBeGreaterThanOrEqual(20_000);
    const prunedIds = plan.pruned.map((p) => p.tool_call_id);
    expect(prunedIds).toContain('c1');
    expect(prunedIds).not.toContain('c7'); // last two user turns
    expect(prunedIds).not.toContain('c6');
    for (const p of plan.pruned)
      expect(p.content).toMatch(new RegExp(`^\\[artifact#${p.artifact}\\] read_file \\{"path":"f${p.artifact}.txt"\\} · [\\d,]+ chars, 1 line — output removed`));
    const after = applyPrunePlan(history, plan.pruned);
    expect(after[2]).toMatchObject({ role: 'tool', content: plan.pruned[0].content, artifact_ref: 1 });
    expect(history[2].content).not.toBe(plan.pruned[0].content); // the input is not mutated
  });

  it('does nothing when it would free less than 20,000 tokens or the outputs have no artifact', () => {
    expect(planPrune([1, 2, 3, 4].flatMap(turn), { count: estimateText })).toBeUndefined();
    const noArtifacts = [1, 2, 3, 4, 5, 6, 7].flatMap(turn).map((m) => (m.role === 'tool' ? { ...m, artifact_ref: undefined } : m));
    expect(planPrune(noArtifacts, { count: estimateText })).toBeUndefined();
  });
});

describe('artifact index', () => {
  it('lists every artifact leaving the history, handles and previous index lines verbatim, newest 60', () => {
    const messages: Message[] = [
      {
        role: 'user',
        content: '<compacted_context>\nold\n\n<artifact_index>\nTool outputs…\n- artifact#2 bash {"command":"ls"} · 10 chars, 1 line\n</artifact_index>\n</compacted_context>',
        summary_level: 1,
      },
      asst('', [{ id: 'x', name: 'grep', args: '{"pattern":"a"}' }]),
      tool('x', 'one\ntwo', 5),
      tool('y', handleText(7, describeOutput('read_file', '{"path":"z"}', 'abc'))),
    ];
    (messages[3] as any).artifact_ref = 7;
    const index = artifactIndex(collectArtifactRefs(messages));
    expect(index).toContain('- artifact#2 bash {"command":"ls"} · 10 chars, 1 line');
    expect(index).toContain('- artifact#5 read_file {"pattern":"a"} · 7 chars, 2 lines');
    expect(index).toContain('- artifact#7 read_file {"path":"z"} · 3 chars, 1 line');
    const many = new Map(Array.from({ length: 100 }, (_, i) => [i + 1, `t${i + 1}`] as [number, string]));
    const lines = artifactIndex(many)
      .split('\n')
      .filter((l) => l.startsWith('- '));
    expect(lines).toHaveLength(60);
    expect(lines[0]).toBe('- artifact#41 t41');
    expect(stripIndex(`S\n\n${index}`)).toBe('S');
  });
});

describe('policy', () => {
  it('the fork fits only when the summary keeps its room in the window', () => {
    expect(fitsSummariser(190_000, 200_000)).toBe(true);
    expect(fitsSummariser(198_500, 200_000)).toBe(false);
  });
});

describe('one replacement shape', () => {
  it('a second compaction merges: level 2, one summary at the head, the latest request unwrapped, the tail verbatim', () => {
    const first: Message = {
      role: 'user',
      content: '<compacted_context>\nFIRST\n</compacted_context>\n\n<last_user_message>\nDo the thing.\n</last_user_message>',
      summary_level: 1,
    };
    const history: Message[] = [{ role: 'system', content: 'SYS' }, first, asst('x', [{ id: 'a', name: 'read_file', args: '{}' }]), tool('a', 'out')];
    const prepared = prepareCompaction({ history, mode: 'auto', settings: NO_EXTRAS, countText: estimateText, countMessage: estimateMessage });
    expect(prepared.level).toBe(2);
    expect(prepared.previousSummary).toBe('FIRST');
    expect(prepared.prompt.update).toBe(true);
    const replacement = buildReplacement(prepared, 'MERGED');
    expect(replacement).toEqual([
      { role: 'system', content: 'SYS' },
      { role: 'user', content: '<compacted_context>\nMERGED\n</compacted_context>\n\n<last_user_message>\nDo the thing.\n</last_user_message>', summary_level: 2 },
    ]);
    expect(summaryHead(replacement)).toBe(replacement[1]);
  });
});
