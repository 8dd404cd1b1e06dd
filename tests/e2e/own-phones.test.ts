/**
 * One user on two phones at once (Chromium, 390×844 each): what she does on one shows on the other
 * live, without a reload.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { en } from '../../shared/i18n/en';
import type { ProfileInput } from '../../shared/schemas/users';
import { makeCompletedUser, type TestUser } from '../helpers/factories';
import { client } from '../helpers/http';
import { waitUntil } from '../helpers/socket';
import { hasChromium, openPhone } from './helpers';
import { appInChromium } from './suite';

const ready = hasChromium();

describe.skipIf(!ready)('one user on two phones (Chromium, 390×844)', { timeout: 90_000 }, () => {
  const app = appInChromium();
  let ana: TestUser;
  let eve: TestUser;
  let phone: Page;
  let tablet: Page;
  const api = () => client(app.server.url);
  /** Both of Ana's phones have their socket in her room: what the server tells her reaches both. */
  const bothLive = () =>
    waitUntil(async () => (await app.server.app.io.in(`user:${ana.id}`).fetchSockets()).length === 2, 10_000, 'both phones connected');

  beforeAll(async () => {
    const woman: Partial<ProfileInput> = { gender: 'female', genders_to_match: ['female'] };
    ana = await makeCompletedUser(app.server, { name: 'Ana', ...woman }, { firstName: 'Ana' });
    eve = await makeCompletedUser(app.server, { name: 'Eve', ...woman }, { firstName: 'Eve' });
    ({ page: phone } = await openPhone(app.browser, { token: ana.token, language: 'en' }));
    ({ page: tablet } = await openPhone(app.browser, { token: ana.token, language: 'en' }));
  }, 120_000);

  it('shows a profile again on the tablet once she unblocks its person on her phone', async () => {
    await tablet.goto(`${app.server.url}/app/profiles/${eve.id}`);
    await tablet.getByRole('heading', { name: /Eve/ }).waitFor();
    await phone.goto(`${app.server.url}/app/settings/blocked/`);
    await phone.getByText(en['blocked.empty']).waitFor();
    await bothLive();

    expect((await api().post(`/api/users/${eve.id}/block/`, { token: ana.token })).status).toBe(204);
    await tablet.getByText(en['profileView.notFound']).waitFor();

    await phone.reload();
    await phone.getByRole('button', { name: 'Unblock Eve' }).click();
    await phone.getByRole('dialog').getByRole('button', { name: en['blocked.unblock'] }).click();
    await phone.getByText('Eve is unblocked.').waitFor();
    // The tablet has not been reloaded: it heard it.
    await tablet.getByRole('heading', { name: /Eve/ }).waitFor();
    expect(await tablet.getByText(en['profileView.notFound']).count()).toBe(0);
  });
});
