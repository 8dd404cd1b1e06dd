import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';

/**
 * postgres.js's internal queue, which holds a pool's idle connections and a reserved connection's
 * statements, loaded from the installed package by path (its `exports` do not name it).
 * patches/postgres+3.4.9.patch must be applied: without it, a queue that is never empty when shifted
 * keeps every shifted slot, and each queue carries a getter of its own, which V8 allocates in the old
 * generation, where it kept the queue's young parts alive until the next full GC (patches/README.md).
 */
const queueUrl = pathToFileURL(path.resolve('node_modules/postgres/src/queue.js')).href;

interface Queue<T> {
  readonly length: number;
  push(x: T): T;
  shift(): T;
  pop(): T;
  remove(x: T): T | null;
}

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapAfterGc = () => {
  gc();
  return process.memoryUsage().heapUsed;
};

describe("postgres.js's queue (patched)", () => {
  it('lets go of what it shifted when it is never empty, as the pool of idle connections is', async () => {
    const { default: Queue } = (await import(queueUrl)) as { default: <T>() => Queue<T> };
    const queue = Queue<object>();
    const idle = Array.from({ length: 10 }, () => ({}));
    for (const connection of idle) queue.push(connection);

    // A query takes the first idle connection and gives it back at the end, two million times over.
    // Unpatched, the queue's array then holds two million spent slots (16 MB at least) for good.
    const before = heapAfterGc();
    for (let i = 0; i < 2_000_000; i++) queue.push(queue.shift());
    const kept = heapAfterGc() - before;
    expect(queue.length).toBe(10);
    expect(kept).toBeLessThan(4_000_000);

    // Still a queue: first in, first out, and remove() takes out the one asked for and nothing else.
    const order = Array.from({ length: 10 }, () => queue.shift());
    expect(new Set(order)).toEqual(new Set(idle));
    for (const connection of order) queue.push(connection);
    expect(queue.remove({})).toBeNull();
    expect(queue.remove(order[3]!)).toBe(order[3]);
    expect(queue.length).toBe(9);
    expect(queue.shift()).toBe(order[0]);
  });

  it('gives back its last entry too, for the pool to take the connection that went idle last', async () => {
    const { default: Queue } = (await import(queueUrl)) as { default: <T>() => Queue<T> };
    const queue = Queue<number>();
    for (const n of [1, 2, 3, 4]) queue.push(n);
    expect(queue.shift()).toBe(1);
    expect(queue.pop()).toBe(4);
    queue.push(5);
    expect(queue.pop()).toBe(5);
    expect([queue.shift(), queue.pop()]).toEqual([2, 3]);
    expect(queue.length).toBe(0);
    // Emptied by pop() as by shift(): what comes next is all it holds.
    queue.push(6);
    expect([queue.length, queue.shift()]).toEqual([1, 6]);
  });

  it('keeps its length getter on its class, so a queue made per reserved connection dies young', async () => {
    const { default: Queue } = (await import(queueUrl)) as { default: <T>() => Queue<T> };
    const queue = Queue<number>();
    // An own accessor is an object literal's: V8 allocates its getter pair in the old generation,
    // and every `reserve()` (a like) made one, with the closures it kept alive.
    expect(Object.getOwnPropertyDescriptor(queue, 'length')).toBeUndefined();
    expect(Object.getOwnPropertyNames(queue).filter((name) => typeof Object.getOwnPropertyDescriptor(queue, name)?.get === 'function')).toEqual([]);
    queue.push(1);
    queue.push(2);
    expect(queue.length).toBe(2);
    expect(queue.shift()).toBe(1);
    expect(queue.length).toBe(1);
  });
});
