import { Box } from 'ink';
import { memo } from 'react';
import { classifyStreaming } from '../markdown/line-classifier.js';
import type { LiveTurn } from '../state/ui-state.js';
import { MarkdownView } from './markdown-view.js';
import { ToolCard } from './tool-card.js';

/** What is still streaming: the uncommitted text (usually one partial line) and a running tool. */
/** While a permission prompt shows the diff, the running card does not repeat it. */
export const LiveTurnView = memo(function LiveTurnView({ live, expanded, asking }: { live: LiveTurn; expanded: boolean; asking: boolean }) {
  let text = live.pending;
  if (live.lead) text = text.replace(/^(\s*\n)+/, '');
  const lines = text.replace(/\n+$/, '') ? classifyStreaming(text.replace(/\n+$/, '').split('\n'), live.md).lines : [];
  return (
    <Box flexDirection="column">
      {lines.length > 0 && <MarkdownView lines={lines} lead={live.lead} />}
      {live.tool && <ToolCard card={asking ? { ...live.tool, diff: undefined } : live.tool} expanded={expanded} />}
    </Box>
  );
});
