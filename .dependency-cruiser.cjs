// The import rules of docs/architecture.md, checked by `npm run lint` (dependency-cruiser).
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
      to: { dependencyTypes: ['npm'], path: 'node_modules/(grammy|@grammyjs|discord\\.js|@discordjs|@larksuiteoapi)/' },
    },
    {
      name: 'only-store-imports-prisma',
      severity: 'error',
      comment: 'Only src/store talks to Prisma; everything else uses its repository functions.',
      from: { path: '^(src|adapters)/', pathNot: '^src/store/' },
      to: { path: '(node_modules/(@prisma|prisma)/|^src/store/generated/)' },
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
    exclude: { path: '^src/store/generated/' },
    parser: 'swc',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js', '.mjs', '.json'] },
  },
};
