// `npm run bench [-- section...]`: prints benchmark figures as numbers and ratios. No thresholds:
// speed is judged by reading these, never asserted inside tests.
type Section = { name: string; load: () => Promise<{ run(): Promise<void> }> };

const SECTIONS: Section[] = [
  { name: 'agent', load: () => import('./agent.ts') },
  { name: 'prompt-prefix', load: () => import('./prompt-prefix.ts') },
  { name: 'knowledge', load: () => import('./knowledge.ts') },
  { name: 'hotpath', load: () => import('./hotpath.ts') },
  { name: 'startup', load: () => import('./startup.ts') },
  { name: 'chaos', load: () => import('./chaos.ts') },
];

const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !SECTIONS.some((s) => s.name === w));
if (unknown.length) {
  console.error(`unknown bench section(s): ${unknown.join(', ')} (known: ${SECTIONS.map((s) => s.name).join(', ')})`);
  process.exit(2);
}
for (const section of SECTIONS) {
  if (wanted.length && !wanted.includes(section.name)) continue;
  console.log(`\n=== ${section.name} ===`);
  await (await section.load()).run();
}
