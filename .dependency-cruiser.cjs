// The import rules of docs/architecture.md, checked by `npm run lint` (dependency-cruiser).

// Each platform's SDK, by the adapter folder allowed to import it.
const PLATFORM_SDKS = { telegram: 'grammy|@grammyjs', discord: 'discord\\.js|@discordjs', feishu: '@larksuiteoapi' };

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'Ports, not cycles: nothing below the gateway imports the gateway, and no two modules import each other.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'adapter-imports-only-core',
      severity: 'error',
      comment: 'Adapters import only src/core (neutral types) and their own SDK.',
      from: { path: '^adapters/' },
      to: { path: '^src/', pathNot: '^src/core/' },
    },
    {
      name: 'adapter-imports-no-other-adapter',
      severity: 'error',
      comment: 'No adapter imports another adapter.',
      from: { path: '^adapters/([^/]+)/' },
      to: { path: '^adapters/', pathNot: '^adapters/$1/' },
    },
    ...Object.entries(PLATFORM_SDKS).map(([kind, sdk]) => ({
      name: `only-${kind}-adapter-imports-its-sdk`,
      severity: 'error',
      comment: 'An adapter imports its own platform SDK, no other.',
      from: { path: '^adapters/', pathNot: `^adapters/${kind}/` },
      to: { dependencyTypes: ['npm'], path: `node_modules/(${sdk})/` },
    })),
    {
      name: 'core-imports-no-adapter',
      severity: 'error',
      comment: 'src/ never imports an adapter; src/main.ts is the one place that wires them.',
      from: { path: '^src/', pathNot: '^src/main\\.ts$' },
      to: { path: '^adapters/' },
    },
    {
      name: 'core-imports-no-platform-sdk',
      severity: 'error',
      comment: 'The agent core does not know what Telegram, Discord or Feishu is.',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm'], path: `node_modules/(${Object.values(PLATFORM_SDKS).join('|')})/` },
    },
    {
      name: 'no-prisma-at-run-time',
      severity: 'error',
      comment:
        "Prisma is the schema and migration tool (prisma/, scripts/); nothing that runs imports a Prisma client or package: every query goes through the store's SQL driver (src/store/sql).",
      from: { path: '^(src|adapters|bin)/' },
      to: { path: '(^|node_modules/)(@prisma/|prisma(/|$))' },
    },
    {
      name: 'core-is-neutral',
      severity: 'error',
      comment: 'src/core holds neutral types and helpers: it imports nothing else of Parley.',
      from: { path: '^src/core/' },
      to: { path: '^(src|adapters)/', pathNot: '^src/core/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // dist/ is the compiled copy of src/ and adapters/ (bin/ runs it): the rules apply to the sources.
    exclude: { path: '^dist/' },
    // swc keeps type-only imports as dependencies; tsPreCompilationDeps would ask for tsc, and TypeScript 7 has no API yet.
    parser: 'swc',
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      extensions: ['.ts', '.js', '.mjs', '.json'],
    },
  },
};
