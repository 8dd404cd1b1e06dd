/**
 * What one process of a test run makes for the others (tests/helpers/once-per-run.ts): a worker
 * killed while making it must not leave the others waiting for it until the hook's timeout.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeOncePerRun } from '../helpers/once-per-run';
import { waitUntil } from '../helpers/socket';

const helper = path.resolve(import.meta.dirname, '../helpers/once-per-run.ts');
const WHAT = 'the thing of the run';

describe('a thing made once per run', () => {
  let dir: string;
  let lock: string;
  let marker: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'eventmatch-once-per-run-'));
    [lock, marker] = [path.join(dir, 'making'), path.join(dir, 'made')];
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  /**
   * Another process of the run asking for it first: it says "making" once it makes it, and then makes
   * it at once ("made") or never.
   */
  async function otherProcess(end: 'made' | 'never') {
    const making = end === 'never' ? 'await new Promise((resolve) => setTimeout(resolve, 3_600_000));' : '';
    const source = `
      import { makeOncePerRun } from ${JSON.stringify(helper)};
      await makeOncePerRun(${JSON.stringify(lock)}, ${JSON.stringify(marker)}, ${JSON.stringify(WHAT)}, async () => {
        console.log('making');
        ${making}
      });`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', source], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = once(child, 'exit');
    const [said] = (await once(child.stdout, 'data')) as [Buffer];
    expect(said.toString()).toBe('making\n');
    return { child, exited };
  }

  it('is made by a waiting process, one only, once the process making it is killed', async () => {
    const maker = await otherProcess('never');
    let made = 0;
    const waiters = Promise.all([1, 2].map(() => makeOncePerRun(lock, marker, WHAT, async () => void made++)));
    let settled = false;
    const settle = () => (settled = true);
    void waiters.then(settle, settle);

    maker.child.kill('SIGKILL');
    await maker.exited;
    // The hook's timeout is a minute: they notice in well under that.
    await waitUntil(() => settled, 10_000, 'the waiters to make it in the killed maker’s place');
    await waiters;
    expect(made).toBe(1);
  }, 20_000);

  it('is not made again once the process that made it has ended', async () => {
    await (await otherProcess('made')).exited;
    let made = 0;
    await makeOncePerRun(lock, marker, WHAT, async () => void made++);
    expect(made).toBe(0);
  });
});
