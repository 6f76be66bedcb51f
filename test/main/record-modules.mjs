// Preloaded with `node --import` into a child: writes the URL of every module it loaded to the file
// named by PARLEY_TEST_MODULE_LOG when the process exits.
import { writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const loaded = [];
registerHooks({
  load(url, context, next) {
    loaded.push(url);
    return next(url, context);
  },
});
process.on('exit', () => writeFileSync(process.env.PARLEY_TEST_MODULE_LOG, loaded.join('\n')));
