import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * postgres.js's query, loaded from the installed package by path (its `exports` do not name it).
 * patches/postgres+3.4.9.patch must be applied: unpatched, each query keeps a closure over its promise's
 * resolving functions, and under a steady load V8's young-generation collector then kept every query
 * since its last collection alive and promoted them all (patches/README.md, bench/README.md).
 */
const queryUrl = pathToFileURL(path.resolve('node_modules/postgres/src/query.js')).href;
const resultUrl = pathToFileURL(path.resolve('node_modules/postgres/src/result.js')).href;

interface Query extends Promise<unknown> {
  active: boolean;
  executed: boolean;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}
type QueryClass = new (strings: string[], args: unknown[], handler: (query: Query) => void) => Query;

describe("postgres.js's query (patched)", () => {
  it('settles through methods that call its own resolving functions, and still settles', async () => {
    const { Query } = (await import(queryUrl)) as { Query: QueryClass };
    const sent: Query[] = [];
    const handler = (query: Query) => {
      query.active = true;
      sent.push(query);
    };

    const answered = new Query(['select 1'], [], handler);
    expect(Object.hasOwn(answered, 'resolve')).toBe(false);
    expect(Object.hasOwn(answered, 'reject')).toBe(false);
    const rows = [{ n: 1 }];
    const result = answered.then((value) => value);
    await Promise.resolve(); // awaiting the query sends it, a microtask later (`Query.handle`)
    await Promise.resolve();
    expect(sent).toEqual([answered]);
    sent[0]!.resolve(rows);
    await expect(result).resolves.toBe(rows);
    expect(answered.active).toBe(false);

    const failed = new Query(['select nope'], [], handler);
    const error = new Error('column "nope" does not exist');
    const rejection = expect(failed).rejects.toBe(error);
    await Promise.resolve();
    await Promise.resolve();
    sent[1]!.reject(error);
    await rejection;
    expect(failed.active).toBe(false);
  });
});

describe("postgres.js's result (patched)", () => {
  it('keeps what it says of the statement out of the rows, in fields of its own', async () => {
    type Fields = { count: unknown; state: unknown; command: unknown; columns: unknown; statement: unknown };
    const { default: Result } = (await import(resultUrl)) as { default: new () => unknown[] & Fields };
    const result = new Result();
    expect([result.count, result.state, result.command, result.columns, result.statement]).toEqual([null, null, null, null, null]);
    result.push({ n: 1 }, { n: 2 });
    result.count = 2;
    result.command = 'SELECT';
    expect([result.count, result.command]).toEqual([2, 'SELECT']);
    expect(new Result().count).toBe(null); // each its own
    expect(Object.keys(result)).toEqual(['0', '1']);
    expect(Object.getOwnPropertyNames(result)).toEqual(['0', '1', 'length']);
    expect(result).toEqual([{ n: 1 }, { n: 2 }]);
    expect(JSON.stringify(result)).toBe('[{"n":1},{"n":2}]');
    expect(Array.isArray(result) && Object.getPrototypeOf(result.map((row) => row)) === Array.prototype).toBe(true);
  });
});
