import { Box } from 'ink';
import { memo, useMemo } from 'react';
import { classifyStreaming, type MarkdownLine, type MarkdownState } from '../markdown/line-classifier.js';
import type { LiveTurn } from '../state/ui-state.js';
import { MarkdownView } from './markdown-view.js';
import { ToolCard } from './tool-card.js';

function classifyHeld(text: string, md: MarkdownState): { lines: MarkdownLine[]; state: MarkdownState } {
  return text ? classifyStreaming(text.split('\n'), md) : { lines: [], state: md };
}

/** Held blank lines are not drawn until something follows them. */
function trimBlank(lines: MarkdownLine[]): MarkdownLine[] {
  let n = lines.length;
  while (n > 0 && lines[n - 1].kind === 'blank') n--;
  return n === lines.length ? lines : lines.slice(0, n);
}

/** What is still streaming: the uncommitted text (usually one partial line) and a running tool. */
/** While a permission prompt shows the diff, the running card does not repeat it. */
export const LiveTurnView = memo(function LiveTurnView({ live, expanded, asking }: { live: LiveTurn; expanded: boolean; asking: boolean }) {
  let text = live.pending;
  if (live.lead) text = text.replace(/^(\s*\n)+/, '');
  // Held lines (a list or table still growing) change only at a line break: classify them once
  // and only the partial line on every delta, so their line objects stay the same between frames.
  const nl = text.lastIndexOf('\n');
  const heldText = nl < 0 ? '' : text.slice(0, nl);
  const held = useMemo(() => classifyHeld(heldText, live.md), [heldText, live.md]);
  const partial = nl < 0 ? text : text.slice(nl + 1);
  const lines = partial ? [...held.lines, ...classifyStreaming([partial], held.state).lines] : trimBlank(held.lines);
  return (
    <Box flexDirection="column">
      {lines.length > 0 && <MarkdownView lines={lines} lead={live.lead} />}
      {live.tool && <ToolCard card={asking ? { ...live.tool, diff: undefined } : live.tool} expanded={expanded} />}
    </Box>
  );
});
