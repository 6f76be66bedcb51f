// Entry point of the `parley` command (bin/parley.mjs, `npm run parley -- ...`).
import { defaultIO } from './context.ts';
import { runCli } from './program.ts';

process.exitCode = await runCli(process.argv.slice(2), defaultIO());
