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

/**
 * Work that runs on beside what started it, which a close waits for: `track` holds each piece until it
 * has settled (its failure is for its caller to handle), and `settled` waits until none is left, the
 * pieces started meanwhile too.
 */
export function inFlight() {
  const running = new Set<Promise<void>>();
  return {
    track(work: Promise<unknown>) {
      const settled = work.then(
        () => {},
        () => {},
      );
      running.add(settled);
      void settled.then(() => running.delete(settled));
    },
    async settled() {
      while (running.size > 0) await Promise.all(running);
    },
  };
}

/**
 * Waits until `work` has settled (its failure is its caller's to handle), or `ms` have gone, whichever
 * comes first: a close's grace for work it would rather not cut, but must not wait on for good.
 */
export async function settledWithin(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  const settled = work.then(
    () => {},
    () => {},
  );
  await Promise.race([settled, grace]);
  clearTimeout(timer);
}

/**
 * One grace for all the waits of a close, counted from its start (`begin`, or the first `left`): each
 * wait is given its own bound, but no more than what is left of the whole, so that however many of them
 * meet a stall, together they end in time for the database to close before the process's deadline.
 */
export function sharedGrace(ms: number) {
  let endsAt: number | undefined;
  const begin = () => {
    endsAt ??= Date.now() + ms;
  };
  return {
    begin,
    /** The time a wait of bound `own` may take now: `own`, or what is left of the grace if less. */
    left(own = Infinity): number {
      begin();
      return Math.max(0, Math.min(own, endsAt! - Date.now()));
    },
  };
}

export type SharedGrace = ReturnType<typeof sharedGrace>;
