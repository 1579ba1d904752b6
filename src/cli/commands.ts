import type { Command } from 'commander';
import { CLIENT_EXIT, EXIT, type ExitScheme } from './exit-codes.js';

/**
 * The top-level commands, by the module that defines them. A module holds flags only
 * (each command imports its code when it runs); `decide ask …` goes further and loads
 * only the module that defines `ask`, while help, a misspelt command or none at all
 * load every one, in the order `decide --help` lists them.
 */
interface Family {
  define: () => Promise<Command[]>;
  /** serve, mcp and the operator commands exit with sysexits codes; the client commands, eval and calibrate with the client's. */
  scheme: ExitScheme;
}

const FAMILIES = {
  serve: { define: async () => [(await import('./serve-command.js')).serveCommand()], scheme: EXIT },
  mcp: { define: async () => [(await import('./mcp-command.js')).mcpCommand()], scheme: EXIT },
  operator: { define: async () => (await import('./operator/commands.js')).operatorCommands(), scheme: EXIT },
  client: { define: async () => (await import('./client-commands.js')).clientCommands(), scheme: CLIENT_EXIT },
  eval: { define: async () => [(await import('./eval-command.js')).evalCommand()], scheme: CLIENT_EXIT },
  calibrate: { define: async () => [(await import('./calibrate-command.js')).calibrateCommand()], scheme: CLIENT_EXIT },
} satisfies Record<string, Family>;

/** Which family defines each command name (a test holds it to the definitions). */
export const FAMILY_OF: Record<string, keyof typeof FAMILIES> = {
  serve: 'serve',
  mcp: 'mcp',
  key: 'operator',
  pass: 'operator',
  backup: 'operator',
  ask: 'client',
  stress: 'client',
  usage: 'client',
  revoke: 'client',
  eval: 'eval',
  calibrate: 'calibrate',
};

/** The commands to define for this command line, each with the exit scheme of its usage errors. */
export async function commandsFor(name: string | undefined): Promise<Array<{ command: Command; scheme: ExitScheme }>> {
  const family = name !== undefined && Object.hasOwn(FAMILY_OF, name) ? FAMILY_OF[name] : undefined;
  const chosen: Family[] = family ? [FAMILIES[family]] : Object.values(FAMILIES);
  const defined = await Promise.all(chosen.map(async ({ define, scheme }) => (await define()).map((command) => ({ command, scheme }))));
  return defined.flat();
}
