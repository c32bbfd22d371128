import { Command, CommanderError } from 'commander';
import { GatewayConnectionError, GatewayError } from '@gateway/sdk';
import { adminCommand } from './commands/admin';
import { configCommand } from './commands/config';
import { listenCaCommand, listenCommand } from './commands/listen';
import { resourceCommands } from './commands/resources';
import { triggerCommand } from './commands/trigger';
import { readEnvironment } from './config';
import { CommandExit, contextFor, UsageError, type Act, type Io } from './context';
import { Output } from './output';

/** sysexits.h: the command was used wrongly. */
const EXIT_USAGE = 64;

/** The one CLI: merchants' API calls, `listen`, `trigger`, the operators' `admin` and `config` commands. */
export function buildProgram(io: Io): Command {
  const act: Act =
    (action) =>
    async (...args) => {
      const command = args.at(-1) as Command;
      await action(contextFor(command, io), ...(args.slice(0, -1) as never[]));
    };
  const program = new Command('gateway')
    .description(
      "the payment gateway's command line: the merchant API, listen, trigger, and operator commands",
    )
    .option('--base-url <url>', 'the gateway (env GATEWAY_URL)', io.env.gatewayUrl)
    .option('--api-key <key>', "the business's API key, sk_test_... (env GATEWAY_API_KEY)")
    .option(
      '--admin-token <token>',
      'the operator token of `admin` commands (env ADMIN_TOKEN; default the development token, for localhost only)',
    )
    .option('--json', 'print results as JSON (listen: one JSON object per line)')
    .option(
      '--field <name>',
      'print only this field of the result, e.g. payment_id (dotted for nested ones: pix.copia_e_cola)',
    )
    .option('--no-color', 'no colours even in a terminal (env NO_COLOR)')
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .showHelpAfterError()
    .exitOverride();
  for (const command of [
    ...resourceCommands(act),
    listenCommand(act, io.env.tlsDir),
    listenCaCommand(act, io.env.tlsDir),
    triggerCommand(act),
    adminCommand(act),
    configCommand(act, io),
  ])
    program.addCommand(command);
  // Commands made on their own and added do not inherit these settings as `.command()` children do.
  applyToAll(program, (command) => {
    command.configureOutput(program.configureOutput()).showHelpAfterError().exitOverride();
  });
  return program;
}

function applyToAll(command: Command, apply: (command: Command) => void): void {
  for (const sub of command.commands) {
    apply(sub);
    applyToAll(sub, apply);
  }
}

/** Runs the CLI on `argv` (without node and the script) and answers its exit status. */
export async function run(argv: readonly string[], io: Io = defaultIo()): Promise<number> {
  const program = buildProgram(io);
  const json = argv.includes('--json');
  const output = new Output({ stdout: io.stdout, stderr: io.stderr, json, color: io.env.color });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : EXIT_USAGE;
    if (err instanceof CommandExit) return err.status;
    if (err instanceof UsageError) {
      output.error(err.message);
      return EXIT_USAGE;
    }
    if (err instanceof GatewayError) {
      if (json)
        io.stderr.write(
          `${JSON.stringify({ error: { code: err.code, message: err.message, status: err.status } })}\n`,
        );
      else
        output.error(
          `${err.code} (HTTP ${err.status}): ${err.message}${err.requestId ? ` [request ${err.requestId}]` : ''}`,
        );
      return 1;
    }
    if (err instanceof GatewayConnectionError) {
      output.error(`cannot reach the gateway: ${err.message}`);
      return 1;
    }
    output.error(err instanceof Error ? err.message : String(err));
    return 1;
  }
}

function defaultIo(): Io {
  // A reader that goes away (`gateway ... | head`) ends the command quietly, as it does for any Unix tool.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
  return { stdout: process.stdout, stderr: process.stderr, env: readEnvironment() };
}
