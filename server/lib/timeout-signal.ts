/**
 * `AbortSignal.timeout(ms)`, kept alive by its own timer until it fires. Node 20 holds an
 * `AbortSignal.timeout` weakly, from its timer as from an `AbortSignal.any` built on it: once nothing
 * else refers to it, a garbage collection takes it, and the signal built on it never aborts (a deadline
 * that silently never comes: a stalled mail server would hold its request and its connection for good).
 * The timer is unref'd, as `AbortSignal.timeout`'s is: it keeps no process up.
 */
export function timeoutSignal(ms: number): AbortSignal {
  const controller = new AbortController();
  setTimeout(() => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), ms).unref();
  return controller.signal;
}
