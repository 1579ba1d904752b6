import type { Command } from 'commander';

/**
 * `decide completion bash|zsh|fish`: a completion script written from the program's
 * own definitions (every command, subcommand, option and choice commander knows), so
 * it says what this version of decide takes and never goes stale by hand.
 */

export type Shell = 'bash' | 'zsh' | 'fish';
export const SHELLS: readonly Shell[] = ['bash', 'zsh', 'fish'];

interface Flag {
  /** "--context", and "-h" beside "--help". */
  names: string[];
  description: string;
  /** It takes a value: its choices when it has some, else any word (a file, say). */
  value?: { choices?: readonly string[] };
}

interface Node {
  /** Command words from the program down: "" for decide itself, "key create". */
  path: string;
  /** Command words: subcommands, or the choices of its first argument. */
  words: string[];
  flags: Flag[];
}

/** Every command of `program`, each with the words and flags that may follow it. */
function nodesOf(command: Command, path = ''): Node[] {
  // Commander adds --help to every command without listing it among its options.
  const options = [
    ...command.options,
    command
      .createHelp()
      .visibleOptions(command)
      .find((option) => option.long === '--help'),
  ];
  const flags: Flag[] = [];
  for (const option of options) {
    if (!option || option.hidden || flags.some((flag) => flag.names.includes(option.long ?? ''))) continue;
    flags.push({
      names: [option.long, option.short].filter((name): name is string => name !== undefined),
      description: option.description,
      value: option.required || option.optional ? { choices: option.argChoices } : undefined,
    });
  }
  const subcommands = command.commands.map((sub) => sub.name());
  const words = subcommands.length ? subcommands : [...(command.registeredArguments[0]?.argChoices ?? [])];
  return [{ path, words, flags }, ...command.commands.flatMap((sub) => nodesOf(sub, path ? `${path} ${sub.name()}` : sub.name()))];
}

/** The script for `shell`, completing `program`. */
export function completionScript(program: Command, shell: Shell): string {
  const nodes = nodesOf(program);
  return { bash, zsh, fish }[shell](program.name(), nodes);
}

const names = (flags: Flag[]) => flags.flatMap((flag) => flag.names).join(' ');

/** Shell `case` branches: the words, the flags, and the flags' values, by command path. */
function cases(nodes: Node[], indent: string, each: (node: Node) => string): string {
  return nodes.map((node) => `${indent}"${node.path}") ${each(node)} ;;`).join('\n');
}

/**
 * Shared by bash and zsh: which command the words typed so far name (each word that
 * is a subcommand of the one before goes on the path), and what follows each.
 */
function lookups(fn: string, nodes: Node[]): string {
  const valued = nodes.flatMap((node) =>
    node.flags
      .filter((flag) => flag.value)
      .flatMap((flag) => flag.names.map((name) => `    "${node.path}|${name}") echo "${flag.value!.choices?.join(' ') ?? '<any>'}" ;;`)),
  );
  return `${fn}_words() {
  case "$1" in
${cases(nodes, '    ', (node) => `echo "${node.words.join(' ')}"`)}
  esac
}
${fn}_flags() {
  case "$1" in
${cases(nodes, '    ', (node) => `echo "${names(node.flags)}"`)}
  esac
}
# A flag's value: its choices, "<any>" for any word, nothing for a flag that takes none.
${fn}_value() {
  case "$1|$2" in
${valued.join('\n')}
  esac
}
${fn}_path() {
  local cmdpath="" word
  for word in "$@"; do
    case " $(${fn}_words "$cmdpath") " in
      *" $word "*) cmdpath="\${cmdpath:+$cmdpath }$word" ;;
    esac
  done
  echo "$cmdpath"
}`;
}

function bash(name: string, nodes: Node[]): string {
  const fn = `_${name}`;
  return `# bash completion for ${name}, written by \`${name} completion bash\`.
# Load it with: source <(${name} completion bash)
${lookups(fn, nodes)}
${fn}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local cmdpath value
  cmdpath="$(${fn}_path "\${COMP_WORDS[@]:1:COMP_CWORD-1}")"
  value="$(${fn}_value "$cmdpath" "$prev")"
  if [[ "$value" == "<any>" ]]; then
    COMPREPLY=()
  elif [[ -n "$value" ]]; then
    COMPREPLY=($(compgen -W "$value" -- "$cur"))
  elif [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(${fn}_flags "$cmdpath")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(${fn}_words "$cmdpath")" -- "$cur"))
  fi
}
# With nothing to offer (a file argument, a flag's free value), bash completes file names.
complete -o default -F ${fn} ${name}
`;
}

function zsh(name: string, nodes: Node[]): string {
  const fn = `_${name}`;
  return `#compdef ${name}
# zsh completion for ${name}, written by \`${name} completion zsh\`.
# Load it with: source <(${name} completion zsh), or save it as _${name} in a folder of $fpath.
${lookups(fn, nodes)}
${fn}() {
  local cmdpath value
  cmdpath="$(${fn}_path "\${(@)words[2,CURRENT-1]}")"
  value="$(${fn}_value "$cmdpath" "\${words[CURRENT-1]}")"
  if [[ "$value" == "<any>" ]]; then
    _files
  elif [[ -n "$value" ]]; then
    compadd -- \${=value}
  elif [[ "\${words[CURRENT]}" == -* ]]; then
    compadd -- \${=$(${fn}_flags "$cmdpath")}
  else
    local found="$(${fn}_words "$cmdpath")"
    if [[ -n "$found" ]]; then compadd -- \${=found}; else _files; fi
  fi
}
if (( $+functions[compdef] )); then compdef ${fn} ${name}; fi
`;
}

/** A single-quoted fish word. */
const quoted = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

function fish(name: string, nodes: Node[]): string {
  const lines = [
    `# fish completion for ${name}, written by \`${name} completion fish\`.`,
    `# Load it with: ${name} completion fish | source, or save it as ~/.config/fish/completions/${name}.fish`,
    `complete -c ${name} -f`,
  ];
  for (const node of nodes) {
    const path = node.path ? node.path.split(' ') : [];
    // Fish sees the subcommands typed so far; the node's own words are what may come next.
    const seen = path.map((word) => `__fish_seen_subcommand_from ${word}`);
    const here = node.words.length ? [...seen, `not __fish_seen_subcommand_from ${node.words.join(' ')}`] : seen;
    const condition = here.length ? here.join('; and ') : '__fish_use_subcommand';
    if (node.words.length) lines.push(`complete -c ${name} -n ${quoted(condition)} -a ${quoted(node.words.join(' '))}`);
    const flagCondition = seen.length ? seen.join('; and ') : '__fish_use_subcommand';
    for (const flag of node.flags) {
      const spelled = flag.names.map((n) => (n.startsWith('--') ? `-l ${n.slice(2)}` : `-s ${n.slice(1)}`)).join(' ');
      const value = flag.value ? (flag.value.choices ? ` -x -a ${quoted(flag.value.choices.join(' '))}` : ' -r -F') : '';
      lines.push(`complete -c ${name} -n ${quoted(flagCondition)} ${spelled}${value} -d ${quoted(flag.description)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
