/**
 * What `pnpm build` compiles (./build.ts), without the compiler: the launcher reads where the compiled files are from
 * here, and so never loads esbuild.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '../../..');

/** The stack's processes the launcher starts and the images run: each package's `src/main.ts`. */
const processPackages = [
  'services/api-gateway',
  'services/payment',
  'services/pix-adapter',
  'services/solana-watcher',
  'services/checkout',
  'services/customer',
  'services/webhook-dispatcher',
  'services/ledger',
  'services/dashboard',
  'infra/psp-simulator',
  'infra/solana-localnet',
  'infra/mail-catcher',
];

/**
 * What is compiled, per package: the names of its entry files under `src/`, each to `dist/<name>.js`. Every process
 * runs `main`; a service's migrations run `migrate` (a Kubernetes init container); its further commands are
 * `commands/<name>` (the dashboard's `operator:invite`, run in its pod); the deployment's broker steps are the deploy
 * package's.
 */
export const compiledEntries: Record<string, string[]> = {
  ...Object.fromEntries(
    processPackages.map((dir) => {
      const commands = join(root, dir, 'src', 'commands');
      return [
        dir,
        [
          'main',
          ...(existsSync(join(root, dir, 'src', 'migrate.ts')) ? ['migrate'] : []),
          ...(existsSync(commands)
            ? readdirSync(commands)
                .filter((file) => file.endsWith('.ts'))
                .map((file) => `commands/${file.slice(0, -'.ts'.length)}`)
            : []),
        ],
      ];
    }),
  ),
  'infra/deploy': ['apply-rabbitmq-definitions', 'wait-for-rabbitmq-definitions'],
};

/** Where an entry's compiled file is, from the repository's root: `compiledEntry('services/payment')`. */
export function compiledEntry(packageDir: string, name = 'main'): string {
  return join(packageDir, 'dist', `${name}.js`);
}
