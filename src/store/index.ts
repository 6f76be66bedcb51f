export { openStore, type Store } from './store.ts';
export { migrate, type MigrationReport } from './migrate.ts';
export { StoreError, redactUrl } from './errors.ts';
export { hashArguments } from './repos/approvals.ts';
export type * from './types.ts';
