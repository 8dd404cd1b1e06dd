/**
 * How long the client tests' `findBy…` and `waitFor` wait (Testing Library's default is 1 s). Many of
 * them wait for a real server's answer, or for a page's lazy chunk that Vite transforms at its first
 * import: on a busy 2-core machine those took longer than a second (a moderation test's first queue
 * row did, run first in its file). The wait ends as soon as what it waits for is there; only a test
 * that fails waits this long.
 */
import { configure } from '@testing-library/dom';

configure({ asyncUtilTimeout: 5_000 });
