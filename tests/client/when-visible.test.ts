// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { refreshWhenVisible } from '../../client/lib/when-visible';
import { comeBack } from '../helpers/page-visibility';

describe('a refresh when the page comes back into view', () => {
  afterEach(() => vi.useRealTimers());

  it('runs when the page is shown again, at most once per interval, and not once stopped', () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const refresh = vi.fn();
    const stop = refreshWhenVisible(refresh, 30_000);
    comeBack();
    expect(refresh).not.toHaveBeenCalled();
    vi.advanceTimersByTime(30_000);
    comeBack('hidden');
    expect(refresh).not.toHaveBeenCalled();
    comeBack();
    expect(refresh).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(10_000);
    comeBack();
    expect(refresh).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(20_000);
    stop();
    comeBack();
    expect(refresh).toHaveBeenCalledTimes(1);
  });
});
