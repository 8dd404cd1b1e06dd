/**
 * Work that takes its turn per key: each piece starts once the one before it of the same key has
 * settled (failed or not), and a key holds nothing once its last piece has settled.
 */
export function turnsByKey<K>() {
  const last = new Map<K, Promise<unknown>>();
  return function inTurn<T>(key: K, work: () => Promise<T>): Promise<T> {
    const turn = (last.get(key) ?? Promise.resolve()).then(work);
    const settled = turn.catch(() => undefined);
    last.set(key, settled);
    void settled.then(() => {
      if (last.get(key) === settled) last.delete(key);
    });
    return turn;
  };
}
