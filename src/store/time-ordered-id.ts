// Ids for rows the hot path and imports create: a UUID whose first 48 bits are the time in
// milliseconds (version 7, RFC 9562) instead of all random (version 4). Ids made one after another
// sort together, so the indexes on them (a table's primary key, the indexes of rows pointing at it)
// grow at one end instead of each insert rewriting a page somewhere in them: fewer pages written
// per commit, and the ones written are the ones in cache.
export function timeOrderedId(): string {
  // node:crypto loaded on use: `parley knowledge search` reads pages through a module that imports this.
  const random = process.getBuiltinModule('node:crypto').randomUUID();
  const time = Date.now().toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8)}-7${random.slice(15)}`;
}
