/**
 * One user on several phones at once (a phone and a tablet, two tabs): what one of them does reaches
 * the others live, and only them.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeCompletedUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { startServer, type TestServer } from '../helpers/server';
import { type ClientSocket, connect, record, waitFor } from '../helpers/socket';

describe('one user on several phones', () => {
  let server: TestServer;
  const open: ClientSocket[] = [];
  const connectAs = async (token: string) => {
    const socket = await connect(server.url, token);
    open.push(socket);
    return socket;
  };

  beforeAll(async () => {
    server = await startServer();
  });
  afterEach(() => {
    for (const socket of open.splice(0)) socket.close();
  });
  afterAll(() => server.close());

  it('tells every phone of mine of an unblock (person:unblocked), and never the person unblocked', async () => {
    const [ana, ben] = await Promise.all([makeCompletedUser(server), makeCompletedUser(server)]);
    const api = client(server.url);
    expect((await api.post(`/api/users/${ben.id}/block/`, { token: ana.token })).status).toBe(204);
    const [anaPhone, anaTablet, benSocket] = await Promise.all([connectAs(ana.token), connectAs(ana.token), connectAs(ben.token)]);
    const benEvents = record(benSocket);
    const heard = Promise.all([waitFor(anaPhone, 'person:unblocked'), waitFor(anaTablet, 'person:unblocked')]);
    expect((await api.delete(`/api/users/${ben.id}/block/`, { token: ana.token })).status).toBe(204);
    expect(await heard).toEqual([{ user_id: ben.id }, { user_id: ben.id }]);

    // An unblock of nobody blocked changes nothing, and says nothing.
    const anaEvents = record(anaTablet);
    expect((await api.delete(`/api/users/${ben.id}/block/`, { token: ana.token })).status).toBe(204);
    const marker = waitFor(anaTablet, 'deck:answered');
    await api.post('/api/matching/', { token: ana.token, json: { response: 'skip', other: ben.id } });
    await marker;
    expect(anaEvents.map(({ event }) => event)).toEqual(['deck:answered']);
    expect(benEvents).toEqual([]);
  });
});
