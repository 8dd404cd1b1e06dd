/** A page or component rendered in jsdom as the router would, at `path`. */
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';

export function renderAt(path: string, element: ReactElement) {
  const { hook, searchHook } = memoryLocation({ path });
  return render(
    <Router hook={hook} searchHook={searchHook}>
      {element}
    </Router>,
  );
}
