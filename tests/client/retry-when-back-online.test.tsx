// @vitest-environment jsdom
/**
 * A page whose load failed reads again the moment the socket connects (`useRetryWhenBackOnline`),
 * whenever in the page's render the connect lands: between the failure's render and its effects too.
 */
import { act, cleanup, render } from '@testing-library/react';
import { useLayoutEffect } from 'react';
import { afterEach, expect, it } from 'vitest';
import { useConnection, useRetryWhenBackOnline } from '../../client/lib/socket';

afterEach(() => {
  cleanup();
  useConnection.setState({ connected: false });
});

function Page({ failed, retry, connectAtFailure = false }: { failed: boolean; retry: () => void; connectAtFailure?: boolean }) {
  // Runs after the render that shows the failure, before its passive effects: a socket connecting then.
  useLayoutEffect(() => {
    if (failed && connectAtFailure) useConnection.setState({ connected: true });
  }, [failed, connectAtFailure]);
  useRetryWhenBackOnline(failed, retry);
  return null;
}

it('reads again once when the socket connects after the failure', () => {
  useConnection.setState({ connected: false });
  let retries = 0;
  const view = render(<Page failed={false} retry={() => (retries += 1)} />);
  view.rerender(<Page failed retry={() => (retries += 1)} />);
  expect(retries).toBe(0);
  act(() => useConnection.setState({ connected: true }));
  expect(retries).toBe(1);
  // Still connected, or a disconnect: nothing more to try until it connects again.
  act(() => useConnection.setState({ connected: true }));
  act(() => useConnection.setState({ connected: false }));
  expect(retries).toBe(1);
  act(() => useConnection.setState({ connected: true }));
  expect(retries).toBe(2);
});

it('reads again when the socket connects between the failure’s render and its effects', () => {
  useConnection.setState({ connected: false });
  let retries = 0;
  const view = render(<Page failed={false} retry={() => (retries += 1)} connectAtFailure />);
  act(() => view.rerender(<Page failed retry={() => (retries += 1)} connectAtFailure />));
  expect(useConnection.getState().connected).toBe(true);
  expect(retries).toBe(1);
});

it('does not read again for a connect made before the load failed, nor while nothing failed', () => {
  useConnection.setState({ connected: false });
  let retries = 0;
  const view = render(<Page failed={false} retry={() => (retries += 1)} />);
  act(() => useConnection.setState({ connected: true }));
  view.rerender(<Page failed retry={() => (retries += 1)} />);
  expect(retries).toBe(0);
});
