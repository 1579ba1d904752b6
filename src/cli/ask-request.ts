import type { z } from 'zod';
import { DecisionRequest, type Mode } from '../contract/decision.js';
import { CLIENT_EXIT, Failure } from './exit-codes.js';

type ModeName = z.infer<typeof Mode>;

export interface RequestFlags {
  option?: string[];
  level?: string[];
  mode?: ModeName;
  failOn?: 'no' | 'unclear';
}

/** How each field of the DecisionRequest is spelled on the command line. */
const FLAG_OF: Record<string, string> = {
  question: '<question>',
  context: '--context',
  options: '--option',
  levels: '--level',
  mode: '--mode',
};

function label(path: readonly PropertyKey[]): string {
  const [head, index] = path;
  const flag = FLAG_OF[String(head)] ?? String(head);
  const field = path.map(String).join('.');
  return typeof index === 'number' ? `${flag} #${index + 1} (${field})` : `${flag} (${field})`;
}

/** The contract's complaints, one line each, with the flag beside each field name. */
function describe(error: z.ZodError, mode: ModeName): string {
  return error.issues
    .flatMap((issue) =>
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => `${label([key])}: not allowed with mode ${mode}`)
        : [`${label(issue.path)}: ${issue.message}`],
    )
    .map((line) => `\n  ${line}`)
    .join('');
}

/** The mode from the flags: --mode if given, else options → choice, levels → score, neither → noul. */
export function modeOf(flags: RequestFlags): ModeName {
  if (flags.mode) return flags.mode;
  if (flags.option?.length && flags.level?.length) {
    throw new Failure('give either --option (a choice) or --level (a score), not both; or force one with --mode', CLIENT_EXIT.usage);
  }
  return flags.option?.length ? 'choice' : flags.level?.length ? 'score' : 'noul';
}

/**
 * The DecisionRequest the flags describe, checked against the contract here, so an
 * invalid one fails (exit 2, the field and its flag named) before any key is sent.
 */
export function buildRequest(question: string, context: string, flags: RequestFlags, depth: 'standard' | 'stress'): DecisionRequest {
  const mode = modeOf(flags);
  if (mode === 'choice' && !flags.option?.length) {
    throw new Failure('--mode choice needs its options: 2 to 6 --option flags', CLIENT_EXIT.usage);
  }
  if (mode === 'score' && !flags.level?.length) {
    throw new Failure('--mode score needs its levels: exactly 3 --level flags, low to high', CLIENT_EXIT.usage);
  }
  if (flags.failOn && mode !== 'noul') {
    throw new Failure(`--fail-on applies to yes/no questions (mode noul), not to mode ${mode}`, CLIENT_EXIT.usage);
  }
  const candidate: Record<string, unknown> = { mode, question, context, depth };
  if (flags.option?.length) candidate.options = flags.option;
  if (flags.level?.length) candidate.levels = flags.level;
  const parsed = DecisionRequest.safeParse(candidate);
  if (!parsed.success) throw new Failure(`invalid input:${describe(parsed.error, mode)}`, CLIENT_EXIT.usage);
  return parsed.data;
}
