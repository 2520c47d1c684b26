import { Box } from 'ink';
import { Text } from './text.js';
import { memo } from 'react';
import type { MarkdownLine } from '../markdown/markdown-lines.js';
import { layoutTable } from '../markdown/table-block.js';
import { color } from '../theme.js';
import { Spans, Tokens } from './spans.js';

/** The marker in front of the first line of an assistant text segment. */
export const TEXT_MARKER = '●';

/** One line; memoised so lines that did not change between frames are not redrawn by React. */
const LineView = memo(function LineView({ line }: { line: MarkdownLine }) {
  switch (line.kind) {
    case 'blank':
      return <Text> </Text>;
    case 'heading':
      return <Spans spans={line.spans} bold role={line.level <= 2 ? 'heading' : undefined} />;
    case 'item':
      return (
        <Box paddingLeft={line.indent * 2}>
          <Text>{line.bullet} </Text>
          <Box flexGrow={1} flexShrink={1}>
            <Spans spans={line.spans} />
          </Box>
        </Box>
      );
    case 'quote':
      return (
        <Box>
          <Text color={color('muted')} dimColor={!color('muted')}>
            │{' '}
          </Text>
          <Box flexGrow={1} flexShrink={1}>
            <Text italic>
              <Spans spans={line.spans} />
            </Text>
          </Box>
        </Box>
      );
    case 'rule':
      // One row (as the live frame's bound counts it), cut in a terminal narrower than the rule.
      return (
        <Text dimColor wrap="truncate">
          {'─'.repeat(40)}
        </Text>
      );
    case 'fence':
      return line.open && line.info ? <Text dimColor>{line.info}</Text> : null;
    case 'code':
      return (
        <Box paddingLeft={2}>
          <Tokens tokens={line.tokens} />
        </Box>
      );
    case 'table-row':
      return line.separator ? <Text dimColor>{'─'.repeat(24)}</Text> : <Text>{line.cells.join(' │ ')}</Text>;
    case 'table': {
      const laid = layoutTable(line);
      return (
        <Box flexDirection="column">
          <Text bold>{laid.header}</Text>
          <Text dimColor>{laid.rule}</Text>
          {laid.rows.map((row, i) => (
            <Text key={i}>{row}</Text>
          ))}
        </Box>
      );
    }
    case 'text':
      return <Spans spans={line.spans} />;
  }
});

/** Lines of assistant Markdown; `lead` puts the segment marker in front of the first line. */
export const MarkdownView = memo(function MarkdownView({ lines, lead }: { lines: readonly MarkdownLine[]; lead: boolean }) {
  return (
    <Box flexDirection="row" marginTop={lead ? 1 : 0}>
      <Box width={2} flexShrink={0}>
        <Text>{lead ? TEXT_MARKER : ' '}</Text>
      </Box>
      <Box flexDirection="column" flexGrow={1} flexShrink={1}>
        {lines.map((line, i) => (
          <LineView key={i} line={line} />
        ))}
      </Box>
    </Box>
  );
});
