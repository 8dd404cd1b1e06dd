import type { ServerToClientEvents } from '../../shared/events';

/** The socket's events as the client's stores subscribed to them, through `heardSocket`. */
const handlers = new Map<string, (payload: never) => void>();

/**
 * `client/lib/socket` for a test without a server: it never connects, and its `onEvent` keeps each
 * store's handler for `hear` to call. In a test file:
 * `vi.mock('../../client/lib/socket', async (original) => (await import('../helpers/heard-socket')).heardSocket(await original<object>()))`.
 */
export function heardSocket<Module extends object>(original: Module) {
  return {
    ...original,
    connectSocket: () => {},
    onEvent: (event: string, handler: (payload: never) => void) => {
      handlers.set(event, handler);
      return () => handlers.delete(event);
    },
  };
}

/** Plays a server event to the handler a store subscribed to it with. */
export function hear<E extends keyof ServerToClientEvents>(event: E, payload: Parameters<ServerToClientEvents[E]>[0]) {
  handlers.get(event)!(payload as never);
}
