// zod 4 loads all 64 translations of its error messages with every entry point (its index imports
// `locales/index.js`); Parley shows zod's messages in English only, zod's default, which zod sets up
// itself from `locales/en.js`. This load hook gives zod a locales index holding English alone: about
// 3 MB less memory in every process. Node.js without module.registerHooks (before 22.15) loads them all.
import module from 'node:module';

const LOCALES_INDEX = /\/node_modules\/zod\/v4\/locales\/index\.js$/;
/** zod's locales index with English alone (the CLI bundle, scripts/bundle-cli.mjs, puts the same in its place). */
export const ENGLISH_LOCALES_INDEX = "export { default as en } from './en.js';\n";

export function zodEnglishOnly() {
  module.registerHooks?.({
    load(url, context, next) {
      if (!LOCALES_INDEX.test(url)) return next(url, context);
      return { format: 'module', source: ENGLISH_LOCALES_INDEX, shortCircuit: true };
    },
  });
}
