import { isResponseSerializationError } from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { answerSerializer } from '../../server/lib/answer-serializer';
import { DeckCard } from '../../shared/schemas/users';

const compile = (schema: unknown) => answerSerializer({ schema, method: 'GET', url: '/x', httpStatus: '200' });

describe("the answers' serializer", () => {
  it('sends only the fields the schema names', () => {
    const card = { id: 1, name: 'Ana', age: 30, bio: 'Hi', image: null, email: 'ana@example.com', password_hash: 'x' };
    expect(JSON.parse(compile(z.array(DeckCard))([card]))).toEqual([{ id: 1, name: 'Ana', age: 30, bio: 'Hi', image: null }]);
  });

  it('refuses an answer its schema does not describe, rather than send it', () => {
    const serialize = compile(z.object({ status: z.literal('ok') }));
    let thrown: unknown;
    try {
      serialize({ status: 'broken' });
    } catch (error) {
      thrown = error;
    }
    expect(isResponseSerializationError(thrown)).toBe(true);
  });

  it('takes zod schemas only', () => {
    expect(() => compile({ type: 'object' })).toThrow(/must be a zod schema/);
  });
});
