import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Command } from 'commander';
import { CommandExit, type Act, type Io } from '../context';

/** The repository this CLI runs from (it runs from its sources, as every process of the workspace does). */
const root = join(__dirname, '../../../..');

/**
 * `gateway config check`: the launcher's check of the launcher's settings and every process's config against this
 * environment, each process in the environment `npm start` would give it, naming every bad or missing variable of
 * every one in one run (exit 78 when any). The check is the launcher's own (scripts/stack.ts --check-config), run as a
 * process: it reads every service's config, which no package may import.
 */
export function configCommand(act: Act, io: Pick<Io, 'stdout' | 'stderr'>): Command {
  const config = new Command('config').description("the deployment's configuration");
  config
    .command('check')
    .description(
      'check this environment against every service (as `npm start` would start them, APP_ENV included), naming every missing or bad variable of every service at once; exit status 78 when any',
    )
    .action(
      act(async () => {
        const status = await new Promise<number>((resolve, reject) => {
          const check = spawn(
            process.execPath,
            ['--import', 'tsx', join(root, 'scripts/stack.ts'), '--check-config'],
            { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
          );
          check.stdout.on('data', (chunk: Buffer) => io.stdout.write(chunk.toString()));
          check.stderr.on('data', (chunk: Buffer) => io.stderr.write(chunk.toString()));
          check.once('error', reject);
          check.once('close', (code) => resolve(code ?? 1));
        });
        if (status !== 0) throw new CommandExit(status);
      }),
    );
  return config;
}
