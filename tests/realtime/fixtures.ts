import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { makeCompletedUser, type TestUser } from '../helpers/factories';
import { client } from '../helpers/http';
import type { TestServer } from '../helpers/server';

export interface Pair {
  a: TestUser;
  b: TestUser;
  conversationId: number;
}

/** Two users with completed profiles who liked each other over REST (b's like completes the match). */
export async function makePair(
  server: TestServer,
  names: [string, string] = ['Ana', 'Ben'],
  /** Where b's like goes: the instance that must push match:new to both. */
  matchOn: TestServer = server,
): Promise<Pair> {
  const a = await makeCompletedUser(server, { name: names[0] }, { firstName: names[0] });
  const b = await makeCompletedUser(server, { name: names[1] }, { firstName: names[1] });
  return { a, b, conversationId: await match(server, a, b, matchOn) };
}

export async function match(server: TestServer, a: TestUser, b: TestUser, matchOn: TestServer = server) {
  const first = await client(server.url).post('/api/matching/', { token: a.token, json: { response: 'like', other: b.id } });
  expect(first.status, JSON.stringify(first.body)).toBe(200);
  expect(first.body.match).toBe(false);
  const second = await client(matchOn.url).post('/api/matching/', { token: b.token, json: { response: 'like', other: a.id } });
  expect(second.status, JSON.stringify(second.body)).toBe(200);
  expect(second.body.match).toBe(true);
  return second.body.conversation_id as number;
}

/** The conversation's stored messages, as the REST API returns them (oldest first). */
export async function storedMessages(server: TestServer, token: string, conversationId: number) {
  const response = await client(server.url).get(`/api/conversations/${conversationId}/messages/?after=0&limit=100`, {
    token,
  });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.results as Array<{ id: number; sender: number; content: string }>;
}

export const newClientId = () => randomUUID();
