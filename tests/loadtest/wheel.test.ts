import { afterEach, describe, expect, it } from 'vitest';
import { Wheel } from '../../loadtest/wheel';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Waits until `done()` or two seconds have passed, whichever comes first: the assertions after it decide. */
async function until(done: () => boolean) {
  const deadline = performance.now() + 2000;
  while (!done() && performance.now() < deadline) await sleep(5);
}

describe('the load tool’s timer wheel', () => {
  let wheel: Wheel | null = null;
  afterEach(() => wheel?.stop());

  it('runs every action once, no earlier than its delay, in the order of their slots', async () => {
    const ran: { attendee: number; action: number; at: number }[] = [];
    wheel = new Wheel((attendee, action) => ran.push({ attendee, action, at: performance.now() }), 5);
    const start = performance.now();
    wheel.schedule(3, 7, 40);
    wheel.schedule(1, 0, 0);
    wheel.schedule(2, 1, 20);
    expect(wheel.size).toBe(3);
    wheel.start();
    await until(() => ran.length >= 3);
    expect(ran.map(({ attendee, action }) => [attendee, action])).toEqual([
      [1, 0],
      [2, 1],
      [3, 7],
    ]);
    // A slot never runs before it begins: at most one slot early, never a whole slot or more.
    expect(ran[1]!.at - start).toBeGreaterThan(20 - 5);
    expect(ran[2]!.at - start).toBeGreaterThan(40 - 5);
    expect(wheel.size).toBe(0);
    await sleep(20);
    expect(ran).toHaveLength(3);
  });

  it('runs what fell due between being scheduled and the start', async () => {
    const ran: number[] = [];
    wheel = new Wheel((attendee) => ran.push(attendee), 5);
    wheel.schedule(1, 0, 0);
    wheel.schedule(2, 0, 10);
    // Both slots pass before the wheel starts (a setup phase that took longer than planned).
    await sleep(30);
    wheel.start();
    await until(() => ran.length >= 2);
    expect(ran).toEqual([1, 2]);
  });

  it('drops what was scheduled once cleared', async () => {
    const ran: number[] = [];
    wheel = new Wheel((attendee) => ran.push(attendee), 5);
    wheel.schedule(1, 0, 10);
    wheel.clear();
    expect(wheel.size).toBe(0);
    wheel.start();
    await sleep(30);
    expect(ran).toEqual([]);
  });
});
