// Loaded with `node --import` into Parley under the hot-path benchmark: answers the parent's
// 'sql' question over the IPC channel with the store's statement count so far
// (src/store/statement-count.ts, on with PARLEY_COUNT_SQL). Plain JS: it runs before tsx loads.
if (process.send) {
  process.on('message', (message) => {
    if (message !== 'sql') return;
    const counter = globalThis[Symbol.for('parley.sqlStatements')];
    process.send({ sql: counter ? counter.total : null });
  });
  process.channel?.unref();
}
