/**
 * A deny rule on bash holds against rewrites of the command it names (issue 24): the real
 * bundle, `--yolo`, deny `bash(touch:*)` in the user's config, and a model that tries the
 * rewrites that used to slip past the text match, and the evaluated text a review found later
 * (`time --`, `mapfile -C`, array subscripts bash evaluates as arithmetic).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorLines, toolResults, useCliRig } from './cli-fixtures.js';

const { rig, workspace } = useCliRig();

/** Each rewrite of `touch xN`; none may create its file. */
const REWRITES = [
  '(touch x1)',
  '{ touch x2; }',
  'FOO=1 touch x3',
  '\\touch x4',
  'command touch x5',
  'env touch x6',
  '/usr/bin/touch x7',
  'bash -c "touch x8"',
  'if true; then touch x9; fi',
  "t''ouch x10",
  'echo x11 | xargs touch',
  '! touch x12',
  'time touch x13',
  'exec touch x14',
  'nice touch x15',
  'touch${IFS}x16',
  'for i in 1; do touch x17; done',
  'eval touch x18',
  'echo $(touch x19)',
  'X=touch; $X x20',
];

const EVALUATED = [
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

/**
 * Lines that hide the touch they run (each one runs it in plain bash), after the lines that set
 * them up (`prep`, which run): the command hash and alias table, a variable name only known at run
 * time, `${x@P}`, a code-running variable or an arithmetic value set by a builtin, and `fc`.
 */
const HIDDEN = [
  { line: 'BASH_CMDS[t]=/usr/bin/touch; t h1' },
  { line: 'shopt -s expand_aliases; BASH_ALIASES[t]=touch\nt h2' },
  { line: 'n=BASH_CMDS; declare "$n[t]=/usr/bin/touch"; t h3' },
  { line: 'n=\'BASH_CMDS[t]\'; printf -v "$n" /usr/bin/touch; t h4' },
  { line: 'n=\'BASH_CMDS[t]\'; read "$n" <<< /usr/bin/touch; t h5' },
  { prep: "printf '%s%s' '$' '(touch h6)' > p6", line: 'read -r x < p6; echo ${x@P}' },
  { prep: "printf '%s%s' '$' '(touch h7)' > p7", line: 'read -r PS4 < p7; set -x; :' },
  { prep: "printf '%s%s' '$' '(touch h8)' > p8", line: 'for PS4 in "$(cat p8)"; do set -x; :; done' },
  { prep: "printf 'a[%s%s]' '$' '(touch h9)' > p9", line: 'read -r v < p9; echo $((v))' },
  { line: 'set -o history\nhistory -s "touch h10"\nfc -s -1' },
];

/** `keen run --yolo` under deny `bash(touch:*)`, the model sending each line and then a control. */
async function runUnderDeny(lines: readonly string[]) {
  const ws = workspace();
  fs.writeFileSync(path.join(ws.home, 'config.json'), JSON.stringify({ permissions: { deny: ['bash(touch:*)'] } }));
  const calls = [...lines, 'echo control > control.txt'].map((command) => ({ toolCall: { name: 'bash', args: { command } } }));
  const second = rig.fake.requests.length + 1;
  rig.fake.enqueue({ steps: calls }, { steps: [{ text: 'done' }] });
  const r = await rig.keen(ws, ['run', '--yolo', 'go']);
  expect(r.code).toBe(0);
  expect(errorLines(r.stderr)).toEqual([]);
  const results = toolResults(rig.fake.requests[second]);
  expect(results).toHaveLength(lines.length + 1);
  return { ws, results };
}

describe('keen run --yolo with deny bash(touch:*)', () => {
  it('refuses every rewrite of touch, and runs other commands', async () => {
    const { ws, results } = await runUnderDeny(REWRITES);
    const made = fs.readdirSync(ws.cwd).filter((f) => /^x\d+$/.test(f));
    expect(made).toEqual([]);
    const blocked = 'Permission denied: bash is blocked by the rule "bash(touch:*)" (user config permissions.deny).';
    const unknown = ['touch${IFS}x16', 'X=touch; $X x20'];
    REWRITES.forEach((command, i) => {
      expect({ command, text: results[i].text }).toEqual({
        command,
        text: unknown.includes(command)
          ? `${blocked} What the command runs is only known when it runs (an expansion as a command or argument, eval, source, or a shell reading its input), so it may be what the rule names. Write the commands with literal words if they are not.`
          : `${blocked} Do not retry it.`,
      });
    });
    expect(results[REWRITES.length].isError).toBe(false);
    expect(fs.readFileSync(path.join(ws.cwd, 'control.txt'), 'utf8')).toBe('control\n');
  });

  it('an allow rule allows a line only when every command in it is one it names', async () => {
    const ws = workspace();
    const lines = ['echo one | xargs touch y1', 'echo two; touch y2', 'echo $(touch y3)', 'echo allowed-ran', 'echo a | echo b'];
    const second = rig.fake.requests.length + 1;
    rig.fake.enqueue({ steps: lines.map((command) => ({ toolCall: { name: 'bash', args: { command } } })) }, { steps: [{ text: 'done' }] });
    const r = await rig.keen(ws, ['run', '--allowed-tools', 'bash(echo:*)', 'go']);
    expect(r.code).toBe(0);
    const results = toolResults(rig.fake.requests[second]);
    expect(results.map((t) => t.isError)).toEqual([true, true, true, false, false]);
    expect(results[3].text).toContain('allowed-ran');
    expect(fs.readdirSync(ws.cwd).filter((f) => /^y\d$/.test(f))).toEqual([]);
  });

  it('refuses evaluated text bash would run touch for: time --, -C callbacks, array subscripts', async () => {
    const { ws, results } = await runUnderDeny(EVALUATED);
    expect(fs.readdirSync(ws.cwd).filter((f) => /^r\d+$/.test(f))).toEqual([]);
    EVALUATED.forEach((command, i) => {
      expect({ command, denied: results[i].text.startsWith('Permission denied: bash is blocked by the rule "bash(touch:*)"') }).toEqual({ command, denied: true });
    });
    expect(results[EVALUATED.length].isError).toBe(false);
    expect(fs.readFileSync(path.join(ws.cwd, 'control.txt'), 'utf8')).toBe('control\n');
  });

  it('refuses lines that hide what they run: BASH_CMDS, aliases, dynamic names, ${x@P}, read/for variables, fc', async () => {
    const lines = HIDDEN.flatMap((h) => [...(h.prep ? [h.prep] : []), h.line]);
    const { ws, results } = await runUnderDeny(lines);
    expect(fs.readdirSync(ws.cwd).filter((f) => /^h\d+$/.test(f))).toEqual([]);
    lines.forEach((command, i) => {
      const hidden = HIDDEN.some((h) => h.line === command);
      expect({ command, denied: results[i].text.startsWith('Permission denied: bash is blocked by the rule "bash(touch:*)"') }).toEqual({ command, denied: hidden });
    });
    // The refusal says why what the line runs is unknown, so the model can write it plainly.
    const fc = lines.findIndex((l) => l.includes('fc -s'));
    expect(results[fc].text).toContain('What the command runs is only known when it runs (fc runs commands from the history)');
    expect(fs.readFileSync(path.join(ws.cwd, 'p6'), 'utf8')).toBe('$(touch h6)');
    expect(fs.readFileSync(path.join(ws.cwd, 'control.txt'), 'utf8')).toBe('control\n');
  });
});
