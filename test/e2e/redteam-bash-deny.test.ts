/**
 * Red team (issue 24): rewrites of a denied command that bash runs and the first parser-based
 * rules missed — `time --`, callbacks (`mapfile -C`, `compgen -C`) and array subscripts that
 * bash evaluates as arithmetic (`test -v 'a[$(cmd)]'`, `printf -v`, `read`, `unset`, `declare`,
 * `let`, `(( ))`, `[[ -eq ]]`). Each one, run by plain bash, creates its file; none may here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorLines, toolResults, useCliRig } from './cli-fixtures.js';

const { rig, workspace } = useCliRig();

const REWRITES = [
  'time -- touch r1',
  'time -p -- touch r2',
  'echo f | mapfile -C "touch r3" -c 1',
  'echo f | readarray -tC "touch r4" -c 1',
  'compgen -C "touch r5" a',
  "declare -a a; test -v 'a[$(touch r6)]'",
  "declare -a a; [ -v 'a[$(touch r7)]' ]",
  "declare -a a; printf -v 'a[$(touch r8)]' x",
  "declare -a a; read 'a[$(touch r9)]' <<< x",
  "declare -a a; unset 'a[$(touch r10)]'",
  "declare 'a[$(touch r11)]=1'",
  "declare -a a; let 'a[$(touch r12)]'",
  "declare -a a; (( 'a[$(touch r13)]' ))",
  "declare -a a; [[ 'a[$(touch r14)]' -eq 1 ]]",
  "declare -a a; x='a[$(touch r15)]'; echo $((x))",
  "declare -i n='a[$(touch r16)]'",
];

describe('keen run --yolo with deny bash(touch:*): evaluated text', () => {
  it('refuses each rewrite that bash would run touch for', async () => {
    const ws = workspace();
    fs.writeFileSync(path.join(ws.home, 'config.json'), JSON.stringify({ permissions: { deny: ['bash(touch:*)'] } }));
    const calls = [...REWRITES, 'echo control > control.txt'].map((command) => ({ toolCall: { name: 'bash', args: { command } } }));
    const second = rig.fake.requests.length + 1;
    rig.fake.enqueue({ steps: calls }, { steps: [{ text: 'done' }] });
    const r = await rig.keen(ws, ['run', '--yolo', 'go']);
    expect(r.code).toBe(0);
    expect(errorLines(r.stderr)).toEqual([]);
    const results = toolResults(rig.fake.requests[second]);
    expect(results).toHaveLength(REWRITES.length + 1);
    expect(fs.readdirSync(ws.cwd).filter((f) => /^r\d+$/.test(f))).toEqual([]);
    REWRITES.forEach((command, i) => {
      expect({ command, denied: results[i].text.startsWith('Permission denied: bash is blocked by the rule "bash(touch:*)"') }).toEqual({ command, denied: true });
    });
    expect(results[REWRITES.length].isError).toBe(false);
    expect(fs.readFileSync(path.join(ws.cwd, 'control.txt'), 'utf8')).toBe('control\n');
  });
});
