import { Box } from 'ink';
import { Text } from './text.js';
import { color } from '../theme.js';

/** A failure the user should notice: a red rounded box with a title and the message. */
export function ErrorCard({ title, message, maxLines }: { title: string; message: string; maxLines?: number }) {
  const all = message.replace(/\n+$/, '').split('\n');
  const lines = maxLines !== undefined && all.length > maxLines ? all.slice(0, maxLines) : all;
  const hidden = all.length - lines.length;
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={color('error')} paddingX={1} marginTop={1}>
      <Text bold color={color('error')}>
        ✗ {title}
      </Text>
      {message.trim() !== '' && <Text>{lines.join('\n')}</Text>}
      {hidden > 0 && <Text dimColor>… +{hidden} lines (ctrl+o to expand)</Text>}
    </Box>
  );
}
