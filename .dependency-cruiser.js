/** Layering rules: the layout tells the architecture, and this keeps it true. */
module.exports = {
  forbidden: [
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
      name: 'domain-is-pure',
      comment: 'domain/ is logic only: no framework, no I/O, no persistence, no handlers.',
      severity: 'error',
      from: { path: '^services/[^/]+/src/domain/' },
      to: {
        path: [
          'node_modules/(express|typeorm|amqplib|ioredis|pg|undici|qrcode|@solana/web3\\.js|rate-limiter-flexible)/',
          '^packages/(messaging|persistence|testkit|observability)/',
          '^services/[^/]+/src/(handlers|persistence|psp|chain|delivery|http)/',
        ],
      },
    },
    {
      name: 'domain-no-io-builtins',
      severity: 'error',
      from: { path: '^services/[^/]+/src/domain/' },
      to: { dependencyTypes: ['core'], path: '^(fs|http|https|dns|child_process|tls|dgram)$' },
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
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
  },
};
