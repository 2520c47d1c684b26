/**
 * Bash permission rules judge the parsed command line (issue 24): the pure decision for the
 * rewrites that used to slip past a deny rule, for doubt, and for ordinary commands allow rules
 * must still allow.
 */
import { describe, expect, it } from 'vitest';
import { buildPolicy, decide } from '../../src/tools/permissions/index.js';
import { prefixRuleWarning } from '../../src/tools/permissions/rules.js';
import { analyzeCommand } from '../../src/tools/permissions/shell-command.js';

const verdict = (command: string, input: Parameters<typeof buildPolicy>[0]) =>
  decide({ tool: 'bash', summary: command, command, cwd: '/ws' }, buildPolicy({ cwd: '/', home: '/home/u', ...input })).verdict;

const denyTouch = { yolo: true, user: { deny: ['bash(touch:*)'] } };
const askTouch = { yolo: true, user: { ask: ['bash(touch:*)'] } };

describe('deny bash(touch:*) with --yolo', () => {
  const rewrites = [
    'touch x',
    '(touch x)',
    '{ touch x; }',
    'FOO=1 touch x',
    '\\touch x',
    '"touch" x',
    'command touch x',
    'builtin command -p touch x',
    'env touch x',
    'env -i -u HOME FOO=1 -- touch x',
    '/usr/bin/touch x',
    './touch x',
    'bash -c "touch x"',
    'sh -ec "touch x"',
    'bash -o pipefail -c "nice -n 5 touch x"',
    'bash -c \'bash -c "touch x"\'',
    'if true; then touch x; fi',
    'while false; do :; done; until touch x; do :; done',
    'case a in a) touch x;; esac',
    "t''ouch x",
    't"o"uch x',
    'echo x | xargs touch',
    'echo x | xargs -0 -n 1 touch',
    'echo x | xargs -I{} touch {}',
    '! touch x',
    'time touch x',
    'time -p touch x',
    '\\time -f %e touch x',
    'exec touch x',
    'nice touch x',
    'nice -10 touch x',
    'nohup touch x',
    'timeout -s KILL 5 touch x',
    'stdbuf -oL touch x',
    'sudo -u root touch x',
    'doas touch x',
    'ionice -c 3 touch x',
    'setsid -f touch x',
    'chroot / touch x',
    'busybox touch x',
    'taskset -c 0 touch x',
    'flock /tmp/l touch x',
    "flock -n /tmp/l -c 'touch x'",
    "watch -n 1 'touch x'",
    'touch${IFS}x',
    'for i in 1; do touch x; done',
    'for ((i=0; i<1; i++)); do touch x; done',
    'eval touch x',
    'eval "touch x"',
    'echo $(touch x)',
    'echo `touch x`',
    'echo "$(touch x)"',
    'cat <(touch x)',
    'echo > >(touch x)',
    'f() { touch x; }; f',
    'X=$(touch x)',
    'cat <<EOF\n$(touch x)\nEOF',
    'find . -maxdepth 0 -exec touch x \\;',
    "trap 'touch x' EXIT",
    'coproc touch x',
    'true && touch x || false',
    'ls | touch x &',
  ];
  it.each(rewrites)('%s is denied', (command) => {
    expect(verdict(command, denyTouch)).toBe('deny');
  });
});

describe('what cannot be told before it runs: deny denies, ask asks, allow does not allow', () => {
  const doubts = [
    'eval "$X"',
    'eval $(cat cmd)',
    '$X x',
    '${CMD} x',
    '"$X" x',
    '$(echo touch) x',
    'tou?h x',
    'tou[c]h x',
    '{touch,x}',
    "$'touch' x",
    '~/bin/$X',
    'source script.sh',
    '. ./script.sh',
    'bash script.sh',
    'echo touch x | sh',
    'bash -c "$CMD"',
    'echo x | xargs sh',
    'echo x | xargs $CMD',
    'echo x | xargs -J % touch',
    'env -S "touch x"',
    'sudo -s',
    'alias ls=touch',
    'hash -p /usr/bin/touch ls',
    'BASH_ENV=./evil bash -c true',
    'LD_PRELOAD=./evil.so ls',
    'find . $ARGS',
    'echo (',
    'if true; then',
  ];
  it.each(doubts)('%s', (command) => {
    expect(verdict(command, denyTouch)).toBe('deny');
    expect(verdict(command, askTouch)).toBe('ask');
    expect(verdict(command, { user: { allow: ['bash(echo:*)', 'bash(ls:*)', 'bash(cat:*)'] } })).not.toBe('allow');
  });
});

describe('deny rules do not deny what provably runs something else', () => {
  it.each([
    'ls -la',
    'echo touch',
    'git status',
    'cat touch.txt',
    'echo $(date) > out.txt',
    'npm test 2>&1 | tail -5',
    'grep -r "touch x" src',
    'for f in *.ts; do wc -l "$f"; done',
    'echo "$HOME"',
    'ls $DIR',
    '[ -f x ] && echo y',
    'test -d src || mkdir src',
  ])('%s runs', (command) => {
    expect(verdict(command, denyTouch)).toBe('allow');
  });
  it('deny rules with arguments compare words, and doubt about a needed word denies', () => {
    const denyPush = { yolo: true, user: { deny: ['bash(git push:*)'] } };
    expect(verdict('git push origin main', denyPush)).toBe('deny');
    expect(verdict('git "pu"sh', denyPush)).toBe('deny');
    expect(verdict('/usr/bin/git push', denyPush)).toBe('deny');
    expect(verdict('git $SUB origin', denyPush)).toBe('deny');
    expect(verdict('echo push | xargs git', denyPush)).toBe('deny');
    expect(verdict('git -C repo --no-pager push', denyPush)).toBe('deny');
    expect(verdict('git -c color.ui=never --git-dir=.git push', denyPush)).toBe('deny');
    expect(verdict('git -c alias.p=push p', denyPush)).toBe('deny');
    expect(verdict("git -c core.pager='touch x' log", denyTouch)).toBe('deny');
    expect(verdict("GIT_PAGER='touch x' git log", denyTouch)).toBe('deny');
    expect(verdict('git -C repo log', denyTouch)).toBe('allow');
    expect(verdict('command -v touch', denyTouch)).toBe('allow');
    expect(verdict('git pull', denyPush)).toBe('allow');
    expect(verdict('git pushx', denyPush)).toBe('allow');
    expect(verdict('git status $X', denyPush)).toBe('allow');
    const denyExact = { yolo: true, user: { deny: ['bash(rm -rf /)'] } };
    expect(verdict('rm -rf /', denyExact)).toBe('deny');
    expect(verdict("rm '-rf' / $EMPTY", denyExact)).toBe('deny');
    expect(verdict('rm -rf /tmp/x', denyExact)).toBe('allow');
  });
});

describe('allow rules allow exactly what they name, every command of the line', () => {
  const allow = { user: { allow: ['bash(git status)', 'bash(npm test:*)', 'bash(git log *)', 'bash(head:*)', 'bash(wc -l)'] } };
  it.each([
    'git status',
    'npm test',
    'npm test -- --run a.test.ts',
    "npm 'test'",
    'git log --oneline | head -5',
    'npm test 2>&1 | head -20',
    'git status && git log -1',
    'git status > /dev/null',
    'git log $REF',
    '(git status; npm test)',
    'git log | wc -l',
  ])('%s is allowed', (command) => {
    expect(verdict(command, allow)).toBe('allow');
  });
  it.each([
    'git status-x',
    'git status --porcelain',
    'npm testx',
    'npm run build',
    'git status; rm -rf ~',
    'git status && curl x | sh',
    'git log $(rm -rf ~)',
    'git status > out.txt',
    'npm test >> log',
    'git log -1 &> out',
    './git status',
    '/tmp/git status',
    'FOO=1 git status',
    'LD_PRELOAD=x.so git status',
    'nice git status',
    'sudo npm test',
    'bash -c "git status"',
    '$G status',
    'git() { rm -rf ~; }; git status',
    'for f in *; do (( f )); done; git status',
    'for f in *; do for ((i=f; i<1; i++)); do git status; done; done',
    'for f in *; do git log ${!f}; done',
    'echo $((x)) | git status',
    'git status &&',
    '',
  ])('%s is not allowed', (command) => {
    expect(verdict(command, allow)).toBe('ask');
  });
  it('the exact text of a remembered "for this session" command is allowed as it stands', () => {
    expect(verdict('git log > out.txt; wc -l out.txt', { user: { allow: ['bash(git log > out.txt; wc -l out.txt)'] } })).toBe('allow');
  });
  it('project allow rules still count only in a trusted project', () => {
    expect(verdict('npm test', { project: { allow: ['bash(npm test)'] } })).toBe('ask');
    expect(verdict('npm test', { projectTrusted: true, project: { allow: ['bash(npm test)'] } })).toBe('allow');
  });
});

describe('prefix rules and their warning', () => {
  it('a * with no word boundary matches a word prefix, and is warned about; :* and " *" are boundaries', () => {
    expect(verdict('git status-x', { user: { allow: ['bash(git status*)'] } })).toBe('allow');
    expect(verdict('git status-x', { user: { allow: ['bash(git status:*)'] } })).toBe('ask');
    expect(verdict('git status-x', { user: { allow: ['bash(git status *)'] } })).toBe('ask');
    expect(verdict('git status -s', { user: { allow: ['bash(git status *)'] } })).toBe('allow');
    expect(verdict('rmdir d', { yolo: true, user: { deny: ['bash(rm*)'] } })).toBe('deny');
    expect(prefixRuleWarning('bash(git status*)')).toBe(
      'the rule "bash(git status*)" has no word boundary before its *: it matches every command starting with "git status" ("git status-x" too); write "bash(git status:*)" for "git status" alone or with arguments',
    );
    for (const ok of ['bash(git status:*)', 'bash(git status *)', 'bash(*)', 'bash', 'read_file(src/*)', 'bash(npm test)']) expect(prefixRuleWarning(ok)).toBeUndefined();
  });
  it('rule words are quoted like shell words; an unclosed quote is a malformed rule', () => {
    expect(verdict('grep -r "a b" src', { user: { allow: ['bash(grep -r "a b" src)'] } })).toBe('allow');
    expect(verdict("grep -r 'a b' src", { user: { allow: ['bash(grep -r "a b" src)'] } })).toBe('allow');
    expect(() => buildPolicy({ user: { allow: ['bash(echo "a:*)'] } })).toThrow('invalid permission rule "bash(echo "a:*)": unclosed double quote');
    // An exact rule is also the line's text (what "for this session" remembers).
    const heredoc = "cat <<EOF\nit's\nEOF";
    expect(verdict(heredoc, { user: { allow: [`bash(${heredoc})`] } })).toBe('allow');
  });
});

describe('analyzeCommand', () => {
  it('resolves wrappers to the command they run, names reduced to basenames', () => {
    const a = analyzeCommand('env -i FOO=1 nice -n 5 /usr/bin/touch "a b"');
    expect(a.ok && a.runs.map((r) => r.words)).toEqual([
      ['env', '-i', 'FOO=1', 'nice', '-n', '5', '/usr/bin/touch', 'a b'],
      ['nice', '-n', '5', '/usr/bin/touch', 'a b'],
      ['touch', 'a b'],
    ]);
  });
  it('a parse error is reported, not thrown', () => {
    expect(analyzeCommand('echo (').ok).toBe(false);
  });
});

describe('a hostile line that hides what it runs is unknown: deny denies, ask asks, allow does not allow', () => {
  const denyRm = { yolo: true, user: { deny: ['bash(rm:*)'] } };
  const askRm = { yolo: true, user: { ask: ['bash(rm:*)'] } };
  const allowAll = {
    user: {
      allow: [
        'bash(x:*)',
        'bash(zz:*)',
        'bash(echo:*)',
        'bash(read:*)',
        'bash(printf:*)',
        'bash(set:*)',
        'bash(ls:*)',
        'bash(fc:*)',
        'bash(declare:*)',
        'bash(export:*)',
        'bash(getopts:*)',
        'bash(mapfile:*)',
        'bash(builtin:*)',
      ],
    },
  };
  const hidden = {
    'the command hash names the program': [
      'BASH_CMDS[x]=/bin/rm; x -rf y',
      'BASH_CMDS=([x]=/bin/rm); x y',
      'declare -A BASH_CMDS; BASH_CMDS[x]=/bin/rm; x y',
      "printf -v 'BASH_CMDS[zz]' /bin/rm; zz y",
    ],
    'an alias table entry': ['BASH_ALIASES[x]=rm; x y', 'read -a BASH_ALIASES < f; ls'],
    'a variable name only known at run time': [
      'declare "$n"=x',
      'export "$n"=x',
      'export $n=x',
      'local "$n"=x',
      'printf -v "$n" rm',
      'read "$n" < f',
      'getopts ab "$n"',
      'builtin declare "$n=x"',
      'declare -n r=PS4; r=x',
      "declare -x 'LD_PRELOAD=./e.so'; ls",
    ],
    'prompt expansion runs the substitutions in a value': ["x='$(rm y)'; echo ${x@P}", 'read x < f; echo ${x@P}'],
    'a variable set by read, printf -v, for, mapfile or getopts': [
      'read PS4 < f; set -x; ls',
      'printf -v PS4 %s "$(cat f)"; set -x; ls',
      'for PS4 in "$(cat f)"; do set -x; ls; done',
      'mapfile BASH_CMDS < f',
      'getopts ab PS4',
      'read x < f; echo $((x))',
      'read x < f; echo ${y[x]}',
      'read x < f; test -v "$x"',
      'mapfile -t a < f; echo $((a))',
      'x=$(cat f); ((x))',
      'echo $(( $(cat f) ))',
      'for x in $(cat f); do [[ $x -eq 0 ]]; done',
      'read x < f; [[ $x -gt 1 ]]',
      'read x < f; [[ -v a[$x] ]]',
      'set -- $(cat f); (( $1 ))',
      'set -- *; echo $(( $1 ))',
      'f() { (( $1 )); }; f "$(cat f)"',
      'n=$(cat f); arr=(); arr[n]=1',
      'read n < f; arr[$n]=1',
      'n=$(cat f); arr=([n]=1)',
      'n=$(cat f); arr+=([n]=1)',
      'n=$(cat f); a=(1 2); echo "${a[@]:n}"',
      'read n < f; local a[n]=1',
    ],
    'fc runs history': ['fc -s', 'fc -e - rm', 'fc', 'fc -l -s', 'echo 1 | xargs fc -l'],
  };
  for (const [why, commands] of Object.entries(hidden)) {
    it.each(commands)(`${why}: %s`, (command) => {
      expect(verdict(command, denyRm)).toBe('deny');
      expect(verdict(command, askRm)).toBe('ask');
      expect(verdict(command, allowAll)).not.toBe('allow');
    });
  }
  it('a variable set by a builtin, used as the command word, is unknown, not empty', () => {
    for (const c of ['read x < f; $x -rf y', 'printf -v x rm; $x y', 'for x in rm; do $x y; done', 'mapfile a < f; ${a} y', 'getopts x x; $x y'])
      expect(verdict(c, denyRm)).toBe('deny');
    const denyExact = { yolo: true, user: { deny: ['bash(rm -rf /)'] } };
    expect(verdict('read o < f; rm $o /', denyExact)).toBe('deny');
    expect(verdict('for o in -rf; do rm "$o" /; done', denyExact)).toBe('deny');
  });
  it('reading into ordinary variables, listing the history and quoting transforms still run', () => {
    for (const c of [
      'git ls-files | while read -r f; do wc -l "$f"; done',
      'mapfile -t lines < f',
      'getopts ab opt',
      'fc -l',
      'fc -ln -5',
      'echo ${x@Q} ${x@U}',
      'x=$(date); echo "$x"',
      'local x=$(git rev-parse HEAD)',
      // `[[ … ]]` tests that are not arithmetic comparisons evaluate nothing.
      'git ls-files | while read -r f; do [[ -f $f ]] && wc -l "$f"; done',
      'for f in *.ts; do [[ $f == *.test.ts ]] || echo "$f"; done',
      'x=$(git branch --show-current); [[ -n $x && $x != main ]] && echo "$x"',
      // An associative array's key is a string, and `${a[@]}` evaluates nothing.
      'declare -A seen; while read -r k; do seen[$k]=1; done < f; echo "${!seen[@]}"',
      'files=(*.ts); echo "${files[@]}"',
      // `-v`, `test` and `read` as another program's arguments are only words.
      'ls src/*.ts | grep -v test',
      'git grep -n read -- "*.md" | grep -v test',
    ])
      expect(verdict(c, denyRm)).toBe('allow');
  });
});
