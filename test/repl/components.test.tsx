import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCard } from '../../src/repl/components/error-card.js';
import { Footer } from '../../src/repl/components/footer.js';
import { LiveTurnView } from '../../src/repl/components/live-turn.js';
import { Loader } from '../../src/repl/components/loader.js';
import { MarkdownView } from '../../src/repl/components/markdown-view.js';
import { PermissionPrompt } from '../../src/repl/components/permission-prompt.js';
import { PromptInput } from '../../src/repl/components/prompt-input.js';
import { QueueView } from '../../src/repl/components/queue-view.js';
import { ToolCard } from '../../src/repl/components/tool-card.js';
import { emptyEditor } from '../../src/repl/input/editor.js';
import { classifyText } from '../../src/repl/markdown/markdown-lines.js';

afterEach(() => cleanup());

const BAR = '─'.repeat(98);
const boxed = (...lines: string[]) => [`╭${BAR}╮`, ...lines.map((l) => `│ ${l.padEnd(96)} │`), `╰${BAR}╯`].join('\n');

describe('assistant markdown', () => {
  it('renders headings, lists and a highlighted code block under one marker', () => {
    const { lastFrame } = render(<MarkdownView lines={classifyText('# Plan\n\n1. read `a.ts`\n- **fix** it\n\n```ts\nconst a = 1;\n```')} lead />);
    expect(lastFrame()).toBe(['', '● Plan', '', '  1. read a.ts', '  • fix it', '', '  ts', '    const a = 1;'].join('\n'));
  });
});

describe('tool cards', () => {
  it('draws a finished nested list with its numbering and a link shown as label and url', () => {
    const text = '1. Build\n   - see [docs](https://x.dev)\n     1. parse\n1. Test';
    const { lastFrame } = render(<MarkdownView lines={classifyText(text)} lead />);
    expect(lastFrame()).toBe(['', '● 1. Build', '    • see docs (https://x.dev)', '      1. parse', '  2. Test'].join('\n'));
  });

  it('draws a list still streaming line by line as written, then the same list finished and renumbered', () => {
    const live = { mode: 'chat' as const, pending: '1. Build\n   - comp', md: {}, lead: true };
    const { lastFrame, rerender } = render(<LiveTurnView live={live} columns={100} maxRows={20} />);
    expect(lastFrame()).toBe(['', '● 1. Build', '    • comp'].join('\n'));
    rerender(<LiveTurnView live={{ ...live, pending: '1. Build\n   - compile\n1. Test' }} columns={100} maxRows={20} />);
    expect(lastFrame()).toBe(['', '● 1. Build', '    • compile', '  1. Test'].join('\n'));
    expect(render(<MarkdownView lines={classifyText('1. Build\n   - compile\n1. Test')} lead />).lastFrame()).toBe(['', '● 1. Build', '    • compile', '  2. Test'].join('\n'));
  });

  it('collapse long output to three lines with a hint', () => {
    const { lastFrame } = render(<ToolCard card={{ id: '1', name: 'bash', args: 'npm test', status: 'done', output: 'a\nb\nc\nd\ne' }} expanded={false} />);
    expect(lastFrame()).toBe(['', '✓ bash npm test', '  ⎿ a', '    b', '    c', '    … +2 lines (ctrl+o to expand)'].join('\n'));
  });

  it('show the whole output when expanded', () => {
    const { lastFrame } = render(<ToolCard card={{ id: '1', name: 'bash', args: 'ls', status: 'done', output: 'a\nb\nc\nd' }} expanded />);
    expect(lastFrame()).toBe(['', '✓ bash ls', '  ⎿ a', '    b', '    c', '    d'].join('\n'));
  });

  it('show an edit as a diff above the one-line result', () => {
    const card = { id: '1', name: 'edit_file', args: 'src/a.ts', status: 'done' as const, output: 'Edited src/a.ts: replaced 1 occurrence.', diff: '-old\n+new' };
    expect(render(<ToolCard card={card} expanded={false} />).lastFrame()).toBe(
      ['', '✓ edit_file src/a.ts', '    -old', '    +new', '  ⎿ Edited src/a.ts: replaced 1 occurrence.'].join('\n'),
    );
  });

  it('show a running call', () => {
    const { lastFrame } = render(<ToolCard card={{ id: '1', name: 'grep', args: 'TODO in src', status: 'running', output: '' }} expanded={false} />);
    expect(lastFrame()).toBe(['', '○ grep TODO in src running…'].join('\n'));
  });

  it('show a refused call during compaction as an error card', () => {
    const card = { id: '1', name: 'read_file', args: 'a.ts', status: 'error' as const, output: 'Tool calls are disabled during compaction; use the history.' };
    expect(render(<ToolCard card={card} expanded={false} />).lastFrame()).toBe(
      ['', boxed('✗ read_file a.ts', 'Tool calls are disabled during compaction; use the history.')].join('\n'),
    );
  });
});

describe('error card', () => {
  it('has a title and the one-line message', () => {
    expect(render(<ErrorCard title="Error" message="ANTHROPIC_API_KEY is not valid (401)" />).lastFrame()).toBe(
      ['', boxed('✗ Error', 'ANTHROPIC_API_KEY is not valid (401)')].join('\n'),
    );
  });
});

describe('footer', () => {
  const session = { sessionId: '20250101-000000-abcdef', provider: 'anthropic', model: 'claude-sonnet-5-5', inputBudget: 950, window: 1000, contextTokens: 120 };

  it('shows the model, the context used and the session id', () => {
    expect(render(<Footer session={session} exitArmed={false} />).lastFrame()).toBe(' anthropic/claude-sonnet-5-5 · 12% context · session 20250101-000000-abcdef');
  });

  it('suggests /compact past 70% of the window', () => {
    expect(render(<Footer session={{ ...session, contextTokens: 710 }} exitArmed={false} />).lastFrame()).toBe(
      ' anthropic/claude-sonnet-5-5 · 71% context · /compact to free context · session\n 20250101-000000-abcdef',
    );
  });

  it('asks for the second Ctrl+C', () => {
    expect(render(<Footer session={session} exitArmed />).lastFrame()).toBe(' Press Ctrl+C again to exit');
  });
});

describe('prompt input', () => {
  it('shows the placeholder when empty and every line of a multi-line input', () => {
    expect(render(<PromptInput editor={emptyEditor()} />).lastFrame()).toBe(boxed('› Type a message · /help for commands'));
    expect(render(<PromptInput editor={{ ...emptyEditor(), text: 'first\nsecond', cursor: 3 }} />).lastFrame()).toBe(boxed('› first', '  second'));
  });

  it('shows a window of a large paste', () => {
    const text = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n');
    const frame = render(<PromptInput editor={{ ...emptyEditor(), text, cursor: text.length }} />).lastFrame()!;
    expect(frame.split('\n')[1]).toBe(`│ ${'… 18 more lines above'.padEnd(96)} │`);
    expect(frame).toContain('line 30');
    expect(frame).not.toContain('line 18 ');
  });
});

describe('loader and queue', () => {
  it('shows one spinner with the status and how to cancel', () => {
    expect(render(<Loader busy={{ kind: 'compact', status: 'Compacting...', autoCompacting: false }} />).lastFrame()).toBe('\n⠋ Compacting... (esc to cancel)');
    expect(render(<Loader busy={{ kind: 'chat', status: 'Running bash…', autoCompacting: false }} />).lastFrame()).toBe('\n⠋ Running bash… (ctrl+c to interrupt)');
  });

  it('lists queued inputs in order', () => {
    expect(render(<QueueView queue={['fix the test', 'then commit']} />).lastFrame()).toBe('\n↳ queued 1/5: fix the test\n↳ queued 2/5: then commit');
  });
});

describe('permission prompt', () => {
  it('shows the edit as a diff and the three answers', () => {
    const request = { tool: 'edit_file', summary: 'edit a.ts (1 replacement, from line 3)', detail: '--- a.ts\n+++ a.ts\n@@ -3 +3 @@\n-old\n+new' };
    expect(render(<PermissionPrompt view={{ request, selected: 1 }} />).lastFrame()).toBe(
      [
        '',
        boxed(
          'Allow edit_file?',
          'edit a.ts (1 replacement, from line 3)',
          '',
          '  --- a.ts',
          '  +++ a.ts',
          '  @@ -3 +3 @@',
          '  -old',
          '  +new',
          '',
          '  1. Yes',
          '❯ 2. Yes, and allow edit_file for the rest of this session',
          '  3. No, tell the agent what to do instead',
          'enter confirm · 1/2/3 or y/a/n · esc deny',
        ),
      ].join('\n'),
    );
  });
});
