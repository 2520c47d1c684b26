import type { Command } from 'commander';
import { KeenError } from '../errors.js';

interface Spec {
  commands: { name: string; description: string; options: string[] }[];
  rootOptions: string[];
}

/** Commands and their flags, read from the commander program so completion never drifts. */
function specOf(program: Command): Spec {
  const flags = (cmd: Command) => cmd.options.filter((o) => !o.hidden).flatMap((o) => [o.long, o.short].filter((f): f is string => !!f));
  return {
    rootOptions: [...flags(program), '--help', '--version'],
    // An alias (`exec` for `run`) completes as its command does.
    commands: program.commands.flatMap((c) => [c.name(), ...c.aliases()].map((name) => ({ name, description: c.description(), options: [...flags(c), '--help'] }))),
  };
}

/** `keen completion bash|zsh|fish`: a script to source (or install) for that shell. */
export function completionScript(shell: string, program: Command): string {
  const spec = specOf(program);
  switch (shell) {
    case 'bash':
      return bash(spec);
    case 'zsh':
      return zsh(spec);
    case 'fish':
      return fish(spec);
    default:
      throw new KeenError(`no completion for shell "${shell}"; choose bash, zsh or fish`, 2);
  }
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

function bash(spec: Spec): string {
  const cases = spec.commands.map((c) => `    ${c.name}) opts=${quote(c.options.join(' '))} ;;`).join('\n');
  return `# keen completion for bash: eval "$(keen completion bash)" in ~/.bashrc
_keen() {
  local cur=\${COMP_WORDS[COMP_CWORD]} cmd="" opts i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case \${COMP_WORDS[i]} in -*) ;; *) cmd=\${COMP_WORDS[i]}; break ;; esac
  done
  case $cmd in
${cases}
    *) opts=${quote(spec.rootOptions.join(' '))}
       if [[ $cur != -* ]]; then COMPREPLY=($(compgen -W ${quote(spec.commands.map((c) => c.name).join(' '))} -- "$cur")); return; fi ;;
  esac
  COMPREPLY=($(compgen -W "$opts" -- "$cur"))
}
complete -o default -F _keen keen
`;
}

function zsh(spec: Spec): string {
  const commands = spec.commands.map((c) => `    ${quote(`${c.name}:${c.description.replace(/:/g, '\\:')}`)}`).join('\n');
  const cases = spec.commands.map((c) => `    ${c.name}) _values 'option' ${c.options.map(quote).join(' ')} ;;`).join('\n');
  return `#compdef keen
# keen completion for zsh: keen completion zsh > "\${fpath[1]}/_keen" (or eval "$(keen completion zsh)")
_keen() {
  local -a commands
  commands=(
${commands}
  )
  if (( CURRENT == 2 )) && [[ $words[2] != -* ]]; then
    _describe 'command' commands
    return
  fi
  case $words[2] in
${cases}
    *) _values 'option' ${spec.rootOptions.map(quote).join(' ')} ;;
  esac
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then _keen "$@"; else compdef _keen keen; fi
`;
}

function fish(spec: Spec): string {
  const lines = ['# keen completion for fish: keen completion fish > ~/.config/fish/completions/keen.fish', 'complete -c keen -f'];
  const names = spec.commands.map((c) => c.name).join(' ');
  for (const c of spec.commands) lines.push(`complete -c keen -n "not __fish_seen_subcommand_from ${names}" -a ${c.name} -d ${quote(c.description)}`);
  const opt = (cond: string, flag: string) => (flag.startsWith('--') ? `complete -c keen -n "${cond}" -l ${flag.slice(2)}` : `complete -c keen -n "${cond}" -s ${flag.slice(1)}`);
  for (const f of spec.rootOptions) lines.push(opt(`not __fish_seen_subcommand_from ${names}`, f));
  for (const c of spec.commands) for (const f of c.options) lines.push(opt(`__fish_seen_subcommand_from ${c.name}`, f));
  return `${lines.join('\n')}\n`;
}
