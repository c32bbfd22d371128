import type { Command } from 'commander';
import { readEnvironment } from '../src/config';
import { buildProgram, run } from '../src/main';

const io = () => {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: {
      stdout: { write: (text: string) => out.push(text) },
      stderr: { write: (text: string) => err.push(text) },
      env: readEnvironment({}),
    },
    out,
    err,
  };
};

/** Every command's path (`payments create`), found by walking the program as it is built. */
function commandPaths(command: Command, prefix: string[] = []): string[][] {
  return command.commands.flatMap((sub) => {
    const path = [...prefix, sub.name()];
    return [path, ...commandPaths(sub, path)];
  });
}

describe('the CLI', () => {
  const paths = [[], ...commandPaths(buildProgram(io().io))];

  test('has the merchant, listen, trigger and operator commands', () => {
    const names = paths.map((path) => path.join(' '));
    expect(names).toEqual(
      expect.arrayContaining([
        'payments create',
        'payments list',
        'refunds create',
        'webhooks rotate-secret',
        'events list',
        'balance get',
        'balance transactions',
        'listen',
        'listen-ca',
        'trigger',
        'admin create-business',
        'admin set-fee',
        'admin redrive-parked',
        'admin received-funds',
      ]),
    );
  });

  test.each(paths.map((path) => [['gateway', ...path].join(' '), path]))(
    '`%s --help` describes the command and exits 0',
    async (_name, path) => {
      const { io: captured, out } = io();
      expect(await run([...(path as string[]), '--help'], captured)).toBe(0);
      const help = out.join('');
      expect(help).toContain(`Usage: gateway ${(path as string[]).join(' ')}`);
      expect(help.split('\n')[2]!.trim().length).toBeGreaterThan(10);
    },
  );

  test('a wrong use is exit status 64 with the reason and the usage', async () => {
    const { io: captured, err } = io();
    expect(await run(['admin', 'set-fee', 'biz_x', 'pix', 'many', '0'], captured)).toBe(64);
    expect(err.join('')).toMatch(/a whole number is expected[\s\S]*Usage: gateway admin set-fee/);
    const missingKey = io();
    expect(await run(['payments', 'get', 'pay_x'], missingKey.io)).toBe(64);
    expect(missingKey.err.join('')).toContain('--api-key or GATEWAY_API_KEY');
  });
});
