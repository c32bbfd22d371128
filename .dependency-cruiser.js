/** Layering rules: the layout tells the architecture, and this keeps it true. */
const { existsSync, readFileSync, readdirSync } = require('node:fs');
const { join } = require('node:path');

/** Production code: what a service or a package ships (its src/), tests, benches and scripts aside. */
const PRODUCTION = '^(services|packages|infra)/[^/]+/src/';

/** Every workspace package: its folder and manifest, from the folders pnpm-workspace.yaml lists. */
function workspacePackages() {
  const folders = [
    ...readFileSync(join(__dirname, 'pnpm-workspace.yaml'), 'utf8').matchAll(/^\s*-\s*'([^']+)'/gm),
  ]
    .map((match) => match[1])
    .flatMap((folder) =>
      folder.endsWith('/*')
        ? readdirSync(join(__dirname, folder.slice(0, -2))).map((name) => `${folder.slice(0, -2)}/${name}`)
        : [folder],
    );
  return folders
    .filter((folder) => existsSync(join(__dirname, folder, 'package.json')))
    .map((folder) => ({
      folder,
      manifest: JSON.parse(readFileSync(join(__dirname, folder, 'package.json'), 'utf8')),
    }));
}

/**
 * A workspace package imported by name resolves into its folder (pnpm links it), so dependency-cruiser cannot tell
 * it is a devDependency: one rule per package names the folders of the workspace packages it only develops with.
 * A devDependency its build bundles (tsup's `noExternal`) ships inside that build, so its production code may import it.
 */
function noWorkspaceDevDependencies() {
  const packages = workspacePackages();
  const folderOf = new Map(packages.map(({ folder, manifest }) => [manifest.name, folder]));
  return packages.flatMap(({ folder, manifest }) => {
    const bundled = new Set(manifest.tsup?.noExternal ?? []);
    const devFolders = Object.keys(manifest.devDependencies ?? {})
      .filter((name) => folderOf.has(name) && !bundled.has(name))
      .map((name) => `^${folderOf.get(name)}/`);
    return devFolders.length === 0
      ? []
      : [
          {
            name: 'not-to-dev-dep',
            comment: `${manifest.name} develops with these workspace packages; its production code may not import them.`,
            severity: 'error',
            from: { path: `^${folder}/src/` },
            to: { path: devFolders },
          },
        ];
  });
}

module.exports = {
  forbidden: [
    {
      name: 'not-to-dev-dep',
      comment:
        'Production code imports only what its package.json lists in dependencies: an image installs no more in production.',
      severity: 'error',
      from: { path: PRODUCTION },
      to: { dependencyTypes: ['npm-dev'] },
    },
    ...noWorkspaceDevDependencies(),
    {
      name: 'sdk-bundles-only-contract-types',
      comment:
        'The SDK ships without dependencies: from the contracts it bundles it takes types (erased from its build, their declarations inlined), and values only from errors.ts, which imports nothing. Any other value would bring joi into the build.',
      severity: 'error',
      from: { path: '^packages/sdk/src/' },
      to: {
        path: '^packages/contracts/src/',
        pathNot: '^packages/contracts/src/errors\\.ts$',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'production-code-does-not-import-infra',
      comment:
        'infra/ holds stand-ins for outside systems (the PSP simulator, the local chain) and deployment tooling: what services or packages need at run time lives in packages/.',
      severity: 'error',
      from: { path: '^(services|packages)/[^/]+/src/' },
      to: { path: '^infra/' },
    },
    {
      name: 'no-service-imports-another-service',
      comment:
        'Services talk only through messages; shared code lives in packages/. Integration tests may compose several services in one process.',
      severity: 'error',
      from: { path: '^services/([^/]+)/src/' },
      to: { path: '^services/', pathNot: '^services/$1/' },
    },
    {
      name: 'packages-do-not-import-services',
      severity: 'error',
      from: { path: '^packages/' },
      to: { path: '^services/' },
    },
    {
      name: 'infra-stand-ins-do-not-import-services',
      comment:
        'The PSP simulator and the local chain are other systems: they share no code with the gateway services. The deployment checks (infra/deploy/test) read the configs of the services, as the launcher does.',
      severity: 'error',
      from: { path: '^infra/', pathNot: '^infra/deploy/test/' },
      to: { path: '^services/' },
    },
    {
      name: 'domain-imports-only-pure-modules',
      comment:
        'domain/ is logic only, so it imports from an allow-list: its own domain/, the contracts, the node built-ins that compute (crypto for hashes, HMACs and constant-time comparison; net for its address parsers, isIP and BlockList) the pure validators customer data needs, the one-time-password arithmetic (otpauth) and the curve arithmetic of Solana program addresses (@noble/curves). No framework, no I/O, no other code of ours (persistence, handlers, application, messaging, observability); randomness and the clock are passed in.',
      severity: 'error',
      from: { path: '^services/([^/]+)/src/domain/' },
      to: {
        pathNot: [
          '^services/$1/src/domain/',
          '^packages/contracts/src/',
          '^(node:)?(crypto|net)$',
          'node_modules/(@brazilian-utils/brazilian-utils|libphonenumber-js|otpauth|@noble/curves)/',
        ],
      },
    },
    {
      name: 'solana-watcher-reads-without-web3',
      comment:
        'The Solana watcher reads the chain with its own client: web3.js, spl-token and the test wallet built on them are imported (as values) only by the three modules that sign and send, which it loads on first use (docs/adr/0054).',
      severity: 'error',
      from: {
        path: '^services/solana-watcher/src/',
        pathNot:
          '^services/solana-watcher/src/clients/(refund-chain|sandbox-wallet-chain|web3-connection)[.]ts$',
      },
      to: {
        path: ['node_modules/@solana/(web3[.]js|spl-token)/', '^packages/solana-pay-wallet/'],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'solana-watcher-signs-on-first-use',
      comment:
        'The modules that bring web3.js into the Solana watcher are imported through import() only, so an idle watcher never initialises it (docs/adr/0054).',
      severity: 'error',
      from: { path: '^services/solana-watcher/src/' },
      to: {
        path: '^services/solana-watcher/src/clients/(refund-chain|sandbox-wallet-chain|web3-connection)[.]ts$',
        dependencyTypesNot: ['dynamic-import', 'type-only'],
      },
    },
    {
      name: 'persistence-only-stores',
      comment:
        'persistence/ stores what it is given: it never calls use cases, handlers, HTTP code or outside systems (docs/CONVENTIONS.md).',
      severity: 'error',
      from: { path: '^services/([^/]+)/src/persistence/' },
      to: { path: '^services/$1/src/(application|handlers|http|clients)/' },
    },
    {
      name: 'shared-steps-call-no-use-case',
      comment:
        'application/shared/ holds what several use cases share; it sits under them and never calls a use case (docs/CONVENTIONS.md).',
      severity: 'error',
      from: { path: '^services/([^/]+)/src/application/shared/' },
      to: { path: '^services/$1/src/application/[^/]+$' },
    },
    {
      name: 'only-main-wires-handlers',
      comment: 'A handler is reached through the broker: only main.ts (which composes) imports handlers/.',
      severity: 'error',
      from: { path: '^services/([^/]+)/src/(domain|application|persistence|http|clients)/' },
      to: { path: '^services/$1/src/handlers/' },
    },
    {
      name: 'use-cases-know-no-transport',
      comment: 'application/ and clients/ do not depend on how they are called (handlers, HTTP routes).',
      severity: 'error',
      from: { path: '^services/([^/]+)/src/(application|clients)/' },
      to: { path: '^services/$1/src/(handlers|http)/' },
    },
    {
      name: 'src-does-not-import-tests',
      severity: 'error',
      from: { path: '/src/' },
      to: { path: '/test/' },
    },
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
  ],
  options: {
    // Not followed, but kept as dependencies: the rules on npm packages (devDependencies, frameworks) need them.
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
  },
};
