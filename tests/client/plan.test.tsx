// @vitest-environment jsdom
/**
 * The paid plan's screens, from their stores' state: the plan cards, a subscriber's page, "Likes you"
 * with and without the plan, and the deck's notices and refusal of a like with none left. (The same
 * screens against the real server: tests/e2e/paid-plan.test.ts.)
 */
import { act, cleanup, fireEvent, renderHook, screen, waitFor, within } from '@testing-library/react';
import { Suspense } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FREE_DAILY_LIKES } from '../../shared/constants';
import { en } from '../../shared/i18n/en';
import { es } from '../../shared/i18n/es';
import { format } from '../../shared/i18n/format';
import { SERVER_MESSAGES } from '../../shared/i18n/server-messages';
import type { CurrentUser, DeckCard } from '../../shared/schemas/users';
import { DeckPlanNotice, UndoButton, UndoUpsell, useDecide } from '../../client/components/DeckPerks';
import { ApiError, NetworkError } from '../../client/lib/api';
import { api } from '../../client/lib/api-app';
import { formatTime } from '../../client/lib/format';
import { useConnection } from '../../client/lib/socket';
import { PlanCards } from '../../client/components/PlanCards';
import { initLanguage } from '../../client/lib/i18n';
import { useServerAhead } from '../../client/lib/server-clock';
import '../../client/lib/messages-app';
import { Home } from '../../client/pages/app/Home';
import { Likes } from '../../client/pages/app/Likes';
import { Settings } from '../../client/pages/app/Settings';
import { Subscribe, TestPortal } from '../../client/pages/app/Subscribe';
import { useDeck } from '../../client/stores/deck';
import { useLikes } from '../../client/stores/likes';
import { usePlan } from '../../client/stores/plan';
import { personGone } from '../../client/stores/safety';
import { useSession } from '../../client/stores/session';
import { renderAt } from '../helpers/render-at';

const user = (hasSubscription: boolean): CurrentUser => ({
  id: 1,
  email: 'a@b.c',
  first_name: 'Ana',
  last_name: 'B',
  image: null,
  is_profile_completed: true,
  has_subscription: hasSubscription,
  email_verified: true,
  has_password: true,
  is_moderator: false,
  language: 'es',
});
const card = (id: number, name: string): DeckCard => ({ id, name, age: 30, bio: 'Hi', image: null });

beforeEach(async () => {
  localStorage.setItem('language_code', 'en');
  await initLanguage();
  useSession.setState({ token: 't', user: user(false) });
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  localStorage.clear();
  usePlan.getState().reset();
  useLikes.getState().reset();
  useDeck.getState().reset();
});

describe('the plan cards', () => {
  it('sell Starter’s three real perks, none of the template’s, and only Starter can be bought', () => {
    renderAt('/', <PlanCards headingLevel={3} action={() => <button type="button">Buy</button>} />);
    const starter = screen.getByTestId('plan-starter');
    expect(within(starter).getAllByRole('listitem').map((item) => item.textContent)).toEqual([
      en['subscribe.starter.1'],
      en['subscribe.starter.2'],
      `Unlimited likes (free: ${FREE_DAILY_LIKES} every 24 hours)`,
    ]);
    expect(within(starter).getByRole('button').textContent).toBe('Buy');
    const all = document.body.textContent ?? '';
    expect(all).not.toMatch(/website|review|analytic|integration/i);
    for (const plan of ['pro', 'enterprise']) {
      const button = within(screen.getByTestId(`plan-${plan}`)).getByRole('button');
      expect(button.textContent).toBe('COMING SOON!');
      expect(button.hasAttribute('disabled')).toBe(true);
      // Not dressed as Starter's button, which can be pressed: it reads as unavailable.
      expect(button.classList.contains('btn-primary')).toBe(false);
      expect(button.classList.contains('btn-soon')).toBe(true);
    }
  });

  it('say what a yearly plan charges at once under its per-month price, and nothing of the kind monthly', async () => {
    renderAt('/', <PlanCards headingLevel={3} action={() => <button type="button">Buy</button>} />);
    const totals = { starter: '$120', pro: '$240', enterprise: '$480' };
    for (const [plan, total] of Object.entries(totals)) {
      expect(screen.getByTestId(`plan-${plan}`).querySelector('.price-total')?.textContent).toBe(`${total} billed yearly`);
    }
    fireEvent.click(screen.getByRole('radio', { name: en['subscribe.monthly'] }));
    expect(document.querySelector('.price-total')).toBeNull();
    cleanup();
    localStorage.setItem('language_code', 'es');
    await initLanguage();
    renderAt('/', <PlanCards headingLevel={3} action={() => <button type="button">Buy</button>} />);
    expect((await screen.findByTestId('plan-starter')).querySelector('.price-total')?.textContent).toBe('120\u00a0US$ facturados al año');
  });
});

describe('the Spanish plan copy', () => {
  it('says likes and «no», as the deck does: never «me gusta» nor descarte', () => {
    const planKeys = Object.keys(es).filter((key) => /^(subscribe|checkout|portal|likes)\.|^deck\.(likes|undo)/.test(key));
    expect(planKeys.length).toBeGreaterThan(40);
    const copy = [
      ...planKeys.map((key) => es[key as keyof typeof es]),
      SERVER_MESSAGES.daily_likes_exhausted.es,
      SERVER_MESSAGES.nothing_to_undo.es,
      SERVER_MESSAGES.subscription_required.es,
    ];
    for (const text of copy) expect(text).not.toMatch(/me gusta|descart|«saltar»/i);
    expect(es['portal.confirm.text']).toContain('likes ilimitados');
  });
});

describe('the subscribe page of a subscriber', () => {
  const noDates = { trial_ends_at: null, renews_at: null, ends_at: null, payment_failed: false, payment_incomplete: false };
  // Noon where the test runs, so that the date said is that day's in any time zone (noon in UTC is
  // already the next day in Auckland's summer or Kiritimati).
  const noonOn = (year: number, month: number, day: number) => new Date(year, month - 1, day, 12).toISOString();
  it('shows the plan, its perks and "Manage subscription" instead of the plans for sale', () => {
    useSession.setState({ user: user(true) });
    usePlan.setState({ subscription: { ...noDates, active: true, period: 'yearly', manageable: true, trial_days: 0, renews_at: noonOn(2027, 11, 30) } });
    renderAt('/app/subscribe/', <Subscribe />);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(en['subscribe.current.title']);
    expect(screen.getByTestId('current-plan').textContent).toContain(en['subscribe.current.period.yearly']);
    // A line of its own, as the plan's dates under it are: a sentence, capitalized as they are.
    expect(screen.getByText(en['subscribe.current.period.yearly']).tagName).toBe('P');
    for (const words of [en, es]) for (const period of ['monthly', 'yearly'] as const) expect(words[`subscribe.current.period.${period}`]).toMatch(/^\p{Lu}/u);
    expect(screen.getByTestId('current-plan').textContent).toContain('Renews on Nov 30, 2027');
    // Past its trial, the renewal says when; what is charged is said while the trial runs.
    expect(screen.getByTestId('current-plan').textContent).not.toContain('unless you cancel');
    expect(screen.getByRole('link', { name: en['subscribe.current.likes'] }).getAttribute('href')).toBe('/app/likes/');
    expect(screen.getByRole('button', { name: en['subscribe.manage'] })).toBeTruthy();
    expect(screen.queryByTestId('plan-starter')).toBeNull();
  });

  it('lists what the plan gives them: unlimited likes, not the free plan’s limit', () => {
    useSession.setState({ user: user(true) });
    usePlan.setState({ subscription: { ...noDates, active: true, period: 'yearly', manageable: true, trial_days: 0 } });
    renderAt('/app/subscribe/', <Subscribe />);
    const perks = within(screen.getByTestId('current-plan')).getAllByRole('listitem').map((item) => item.textContent);
    expect(perks).toEqual([en['subscribe.starter.1'], en['subscribe.starter.2'], 'Unlimited likes']);
    expect(screen.getByTestId('current-plan').textContent).not.toMatch(/free|every 24 hours/i);
  });

  it('says a renewal’s payment failed while Stripe tries again, above the plan, with "Manage subscription" to update the card', async () => {
    useSession.setState({ user: user(true) });
    const pastDue = { ...noDates, active: true, period: 'monthly' as const, manageable: true, trial_days: 0, payment_failed: true };
    usePlan.setState({ subscription: pastDue });
    const { unmount } = renderAt('/app/subscribe/', <Subscribe />);
    expect(screen.getByRole('alert').textContent).toBe(en['subscribe.paymentFailed']);
    expect(screen.getByRole('button', { name: en['subscribe.manage'] })).toBeTruthy();
    expect(screen.getByTestId('current-plan')).toBeTruthy();
    unmount();
    usePlan.setState({ subscription: { ...pastDue, payment_failed: false } });
    renderAt('/app/subscribe/', <Subscribe />);
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('says a plan ended unpaid, with "Manage subscription" to pay it, beside the plans for sale; ended otherwise, to see its invoices', async () => {
    const unpaid = { ...noDates, active: false, period: null, manageable: true, trial_days: 0, payment_failed: true };
    for (const [language, words] of [
      ['en', en],
      ['es', es],
    ] as const) {
      localStorage.setItem('language_code', language);
      await initLanguage();
      usePlan.setState({ subscription: unpaid });
      const { unmount } = renderAt('/app/subscribe/', <Subscribe />);
      expect((await screen.findByRole('alert')).textContent).toBe(words['subscribe.paymentFailed']);
      expect(screen.getByRole('button', { name: words['subscribe.manage'] })).toBeTruthy();
      expect(await screen.findByTestId('plan-starter')).toBeTruthy();
      unmount();
    }
    // Ended otherwise (cancelled): no alert, and nothing to manage, but the portal still holds their
    // invoices: the button says so, not "Manage subscription".
    usePlan.setState({ subscription: { ...unpaid, payment_failed: false } });
    const { unmount } = renderAt('/app/subscribe/', <Subscribe />);
    await screen.findByTestId('plan-starter');
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.queryByRole('button', { name: es['subscribe.manage'] })).toBeNull();
    expect(screen.getByRole('button', { name: es['subscribe.invoices'] })).toBeTruthy();
    expect([es['subscribe.invoices'], en['subscribe.invoices']]).toEqual(['Ver facturas anteriores', 'See past invoices']);
    unmount();
    // Nothing to manage: neither.
    usePlan.setState({ subscription: { ...unpaid, payment_failed: false, manageable: false } });
    renderAt('/app/subscribe/', <Subscribe />);
    await screen.findByTestId('plan-starter');
    expect(screen.queryByRole('button', { name: es['subscribe.manage'] })).toBeNull();
    expect(screen.queryByRole('button', { name: es['subscribe.invoices'] })).toBeNull();
  });

  it('offers no "Manage subscription" when there is nothing to manage', () => {
    useSession.setState({ user: user(true) });
    usePlan.setState({ subscription: { ...noDates, active: true, period: null, manageable: false, trial_days: 0 } });
    renderAt('/app/subscribe/', <Subscribe />);
    // The plan is shown, only its button is not.
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(en['subscribe.current.title']);
    expect(screen.getByTestId('current-plan')).toBeTruthy();
    expect(screen.queryByRole('button', { name: en['subscribe.manage'] })).toBeNull();
  });

  it('says when the free trial ends; a plan canceled at the end of its period, when it ends', () => {
    useSession.setState({ user: user(true) });
    const trialing = { ...noDates, active: true, period: 'monthly' as const, manageable: true, trial_days: 0, trial_ends_at: noonOn(2026, 12, 30), renews_at: noonOn(2026, 12, 30) };
    usePlan.setState({ subscription: trialing });
    const { unmount } = renderAt('/app/subscribe/', <Subscribe />);
    expect(screen.getByTestId('current-plan').textContent).toContain('Free trial until Dec 30, 2026');
    expect(screen.getByTestId('current-plan').textContent).not.toContain('Renews');
    // What the trial's end charges, while it can still be avoided.
    expect(screen.getByText('$15 on Dec 30, 2026, then every month, unless you cancel')).toBeTruthy();
    unmount();
    usePlan.setState({ subscription: { ...trialing, period: 'yearly' } });
    const yearly = renderAt('/app/subscribe/', <Subscribe />);
    expect(screen.getByText('$120 on Dec 30, 2026, then every year, unless you cancel')).toBeTruthy();
    yearly.unmount();
    usePlan.setState({ subscription: { ...trialing, renews_at: null, ends_at: noonOn(2026, 12, 30) } });
    renderAt('/app/subscribe/', <Subscribe />);
    expect(screen.getByTestId('current-plan').textContent).toContain('Your plan ends on Dec 30, 2026');
    expect(screen.getByTestId('current-plan').textContent).not.toContain('Free trial');
    expect(screen.getByTestId('current-plan').textContent).not.toContain('unless you cancel');
  });

  it('Settings’ plan card says what the person has: the free plan, a trial, a renewal, an end, a failed payment', async () => {
    const renewing = { ...noDates, active: true, period: 'monthly' as const, manageable: true, trial_days: 0, renews_at: noonOn(2026, 12, 30) };
    let answer: object = renewing;
    // The card reads the plan as it opens: the server's answer is the state set here.
    vi.stubGlobal('fetch', async (path: string) => (path.includes('/payments/subscription/') ? Response.json(answer) : Response.json({ detail: 'x' }, { status: 500 })));
    const cases: [boolean, object, string, string][] = [
      [true, renewing, 'Starter · Renews on Dec 30, 2026', 'Starter · Se renueva el 30 dic 2026'],
      [true, { ...renewing, trial_ends_at: noonOn(2026, 12, 30) }, 'Starter · Free trial until Dec 30, 2026', 'Starter · Prueba gratis hasta el 30 dic 2026'],
      [true, { ...renewing, renews_at: null, ends_at: noonOn(2026, 12, 30) }, 'Starter · Your plan ends on Dec 30, 2026', 'Starter · Tu plan termina el 30 dic 2026'],
      [true, { ...renewing, renews_at: null, payment_failed: true }, `Starter · Active${en['subscribe.paymentFailed']}`, `Starter · Activo${es['subscribe.paymentFailed']}`],
      [false, { ...noDates, active: false, period: null, manageable: false, trial_days: 7 }, 'You are on the free plan.', 'Tienes el plan gratuito.'],
      // Ended unpaid: the free plan, and the invoice to pay on the plan's page.
      [false, { ...noDates, active: false, period: null, manageable: true, trial_days: 0, payment_failed: true }, `You are on the free plan.${en['subscribe.paymentFailed']}`, `Tienes el plan gratuito.${es['subscribe.paymentFailed']}`],
    ];
    for (const [subscribed, state, inEnglish, inSpanish] of cases) {
      for (const [language, text] of [
        ['en', inEnglish],
        ['es', inSpanish],
      ] as const) {
        localStorage.setItem('language_code', language);
        await initLanguage();
        useSession.setState({ user: user(subscribed) });
        answer = state;
        usePlan.setState({ subscription: null });
        const { unmount } = renderAt('/app/settings/', <Suspense fallback={null}><Settings /></Suspense>);
        const card = await screen.findByRole('region', { name: (language === 'en' ? en : es)['subscribe.current.title'] });
        await waitFor(() => expect(card.textContent).toBe(`${(language === 'en' ? en : es)['subscribe.current.title']}${text}${(language === 'en' ? en : es)['settings.plan.open']}`));
        expect(within(card).getByRole('link').getAttribute('href')).toBe('/app/subscribe/');
        unmount();
      }
    }
  });

  it('drops "No connection" of a failed buy or portal call once the app is connected again', async () => {
    const offline = new NetworkError(0, 'Failed to fetch');
    vi.spyOn(api, 'checkout').mockRejectedValue(offline);
    vi.spyOn(api, 'portal').mockRejectedValue(offline);
    for (const subscribed of [false, true]) {
      act(() => useConnection.setState({ connected: false }));
      useSession.setState({ user: user(subscribed) });
      usePlan.setState({ subscription: { ...noDates, active: subscribed, period: 'monthly', manageable: true, trial_days: 0 } });
      const { unmount } = renderAt('/app/subscribe/', <Subscribe />);
      const buttons = await screen.findAllByRole('button', { name: subscribed ? en['subscribe.manage'] : en['subscribe.chooseNoTrial'] });
      fireEvent.click(buttons[0]!);
      expect((await screen.findByRole('alert')).textContent).toBe(en['error.network']);
      act(() => useConnection.setState({ connected: true }));
      await waitFor(() => expect(screen.queryByRole('alert')).toBeNull());
      unmount();
    }
  });

  it('frees a button that sent the browser away when the page comes back from the back-forward cache', async () => {
    // A hash: jsdom follows it without leaving the page, as a browser leaves it for the portal.
    vi.spyOn(api, 'portal').mockResolvedValue({ url: '#portal' });
    useSession.setState({ user: user(true) });
    usePlan.setState({ subscription: { ...noDates, active: true, period: 'monthly', manageable: true, trial_days: 0 } });
    renderAt('/app/subscribe/', <Subscribe />);
    const manage = await screen.findByRole('button', { name: en['subscribe.manage'] });
    fireEvent.click(manage);
    await waitFor(() => expect(window.location.hash).toBe('#portal'));
    expect(manage.getAttribute('aria-disabled')).toBe('true');
    // Shown again from the cache (Back from the portal): as it was left, busy, unless freed.
    act(() => void window.dispatchEvent(new PageTransitionEvent('pageshow', { persisted: true })));
    await waitFor(() => expect(manage.getAttribute('aria-disabled')).toBe('false'));
    window.location.hash = '';
  });

  it('the test portal offers to cancel a plan once: cancelled, it says when the plan ends', () => {
    useSession.setState({ user: user(true) });
    const renewing = { ...noDates, active: true, period: 'monthly' as const, manageable: true, trial_days: 0, renews_at: noonOn(2026, 12, 30) };
    usePlan.setState({ subscription: renewing });
    const { unmount } = renderAt('/app/subscribe/test-portal/', <TestPortal />);
    expect(screen.getByRole('button', { name: en['portal.cancel'] })).toBeTruthy();
    unmount();
    usePlan.setState({ subscription: { ...renewing, renews_at: null, ends_at: noonOn(2026, 12, 30) } });
    renderAt('/app/subscribe/test-portal/', <TestPortal />);
    expect(screen.getByText('Your plan ends on Dec 30, 2026')).toBeTruthy();
    expect(screen.queryByRole('button', { name: en['portal.cancel'] })).toBeNull();
  });

  it('the test portal says a refused cancellation once, in the sheet that asked for it', async () => {
    useSession.setState({ user: user(true) });
    const renewing = { ...noDates, active: true, period: 'monthly' as const, manageable: true, trial_days: 0, renews_at: noonOn(2026, 12, 30) };
    usePlan.setState({ subscription: renewing });
    vi.stubGlobal('fetch', async (path: string) =>
      path.includes('/test-portal/cancel/') ? Response.json({ detail: 'Internal server error.' }, { status: 500 }) : Response.json(renewing),
    );
    renderAt('/app/subscribe/test-portal/', <TestPortal />);
    fireEvent.click(screen.getByRole('button', { name: en['portal.cancel'] }));
    fireEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: en['portal.confirm.yes'] }));
    await waitFor(() => expect(screen.getAllByRole('alert').map((alert) => alert.textContent)).toEqual([en['error.generic']]));
    expect(within(screen.getByRole('dialog')).getByRole('alert')).toBeTruthy();
  });
});

describe('"Likes you"', () => {
  it('without the plan: blurred placeholders, nobody’s name or photo, and the upgrade call', () => {
    useLikes.setState({ count: 4, people: [], next: null });
    renderAt('/app/likes/', <Likes />);
    expect(screen.getByTestId('likes-count').textContent).toBe('4 people like you');
    expect(screen.getAllByTestId('like-placeholder')).toHaveLength(4);
    expect(screen.queryAllByTestId('like-card')).toHaveLength(0);
    expect(document.querySelectorAll('.likes img')).toHaveLength(0);
    expect(screen.getByRole('link', { name: en['likes.locked.cta'] }).getAttribute('href')).toBe('/app/subscribe/');
  });

  it('with the plan: the people, each with like and pass', () => {
    useSession.setState({ user: user(true) });
    useLikes.setState({ count: 2, people: [card(7, 'Marco'), card(8, 'Dani')], next: null });
    renderAt('/app/likes/', <Likes />);
    expect(screen.getAllByTestId('like-card').map((item) => item.getAttribute('data-card-id'))).toEqual(['7', '8']);
    expect(screen.getByRole('button', { name: 'Like Marco' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Dislike Dani' })).toBeTruthy();
    expect(screen.queryByRole('link', { name: en['likes.locked.cta'] })).toBeNull();
  });

  it('moves the keyboard to the next person once one is answered, then to the title once none is left', async () => {
    useSession.setState({ user: user(true) });
    const answered: string[] = [];
    useLikes.setState({
      count: 2,
      people: [card(7, 'Marco'), card(8, 'Dani')],
      next: null,
      // As the store's own: the person leaves the list at once.
      answer: async (person, action) => {
        answered.push(`${action} ${person.name}`);
        useLikes.setState((state) => ({ people: state.people!.filter((other) => other.id !== person.id), count: state.count! - 1 }));
      },
    });
    renderAt('/app/likes/', <Likes />);
    const pass = screen.getByRole('button', { name: 'Dislike Marco' });
    pass.focus();
    await act(async () => fireEvent.click(pass));
    await vi.waitFor(() => expect(document.activeElement).toBe(screen.getByRole('link', { name: /Dani/ })));
    const like = screen.getByRole('button', { name: 'Like Dani' });
    like.focus();
    await act(async () => fireEvent.click(like));
    await vi.waitFor(() => expect(document.activeElement).toBe(screen.getByRole('heading', { name: en['likes.title'] })));
    expect(answered).toEqual(['dislike Marco', 'like Dani']);
  });

  it('says so when nobody is waiting', () => {
    useSession.setState({ user: user(true) });
    useLikes.setState({ count: 0, people: [], next: null });
    renderAt('/app/likes/', <Likes />);
    expect(screen.getByTestId('likes-count').textContent).toBe(en['likes.empty']);
    expect(screen.queryByTestId('like-placeholder')).toBeNull();
  });
});

describe('the deck and the plan', () => {
  const resetsAt = new Date(Date.UTC(2030, 0, 1, 21, 30)).toISOString();

  it('tells a free user out of likes when they come back, and refuses a like on the spot', () => {
    usePlan.setState({ allowance: { unlimited: false, limit: 100, remaining: 0, resets_at: resetsAt } });
    useDeck.setState({ current: card(3, 'Noor'), queue: [card(4, 'Leo')], exiting: null });
    renderAt('/app/home/', <DeckPlanNotice />);
    const notice = screen.getByTestId('likes-out');
    expect(notice.textContent).toMatch(/^You have used your 100 likes\. More at .+\. Dislikes and skips are unlimited\./);
    expect(within(notice).getByRole('link', { name: en['deck.likesUpsell'] }).getAttribute('href')).toBe('/app/subscribe/');

    const { result } = renderHook(() => useDecide());
    let accepted = true;
    act(() => {
      accepted = result.current('like');
    });
    expect(accepted).toBe(false);
    expect(useDeck.getState().current?.id).toBe(3);
    expect(useDeck.getState().exiting).toBeNull();
    expect(usePlan.getState().notice).toBe('likes');
  });

  it('says "tomorrow" when the likes come back tomorrow, and a time alone when later today', () => {
    // 3 p.m. on the phone, and not the test's own clock: run at midnight, its "tomorrow" and "today"
    // were computed on one day and said on the next.
    vi.useFakeTimers({ now: new Date(2030, 0, 1, 15, 0), toFake: ['Date'] });
    try {
      const time = (iso: string) => formatTime(iso, 'en');
      const tomorrow = new Date(2030, 0, 2, 8, 1).toISOString();
      usePlan.setState({ allowance: { unlimited: false, limit: 100, remaining: 0, resets_at: tomorrow } });
      renderAt('/app/home/', <DeckPlanNotice />);
      expect(screen.getByTestId('likes-out').textContent).toContain(`You have used your 100 likes. More tomorrow at ${time(tomorrow)}.`);
      // Later today: a minute before midnight.
      const today = new Date(2030, 0, 1, 23, 59).toISOString();
      act(() => usePlan.setState({ allowance: { unlimited: false, limit: 100, remaining: 0, resets_at: today } }));
      expect(screen.getByTestId('likes-out').textContent).toContain(`You have used your 100 likes. More at ${time(today)}.`);
    } finally {
      vi.useRealTimers();
    }
  });

  it('says "tomorrow" by the server’s clock, the likes’ own, on a phone whose clock is minutes behind it at midnight', () => {
    // 23:55 on the phone, five past midnight by the server: 20:01 is today, not tomorrow.
    vi.useFakeTimers({ now: new Date(2030, 0, 1, 23, 55), toFake: ['Date'] });
    useServerAhead.setState(10 * 60_000, true);
    try {
      const resetsAt = new Date(2030, 0, 2, 20, 1).toISOString();
      usePlan.setState({ allowance: { unlimited: false, limit: 100, remaining: 0, resets_at: resetsAt } });
      renderAt('/app/home/', <DeckPlanNotice />);
      const time = formatTime(resetsAt, 'en');
      expect(screen.getByTestId('likes-out').textContent).toContain(`You have used your 100 likes. More at ${time}.`);
    } finally {
      useServerAhead.setState(0, true);
      vi.useRealTimers();
    }
  });

  it('says it again once the server’s clock is heard, the notice shown before by the phone’s', () => {
    // 23:55 on the phone: tomorrow's 20:01 is tomorrow's, until the server says it is five past midnight.
    vi.useFakeTimers({ now: new Date(2030, 0, 1, 23, 55), toFake: ['Date'] });
    try {
      const resetsAt = new Date(2030, 0, 2, 20, 1).toISOString();
      usePlan.setState({ allowance: { unlimited: false, limit: 100, remaining: 0, resets_at: resetsAt } });
      renderAt('/app/home/', <DeckPlanNotice />);
      const time = formatTime(resetsAt, 'en');
      const notice = screen.getByTestId('likes-out');
      expect(notice.textContent).toContain(`More tomorrow at ${time}.`);
      act(() => useServerAhead.setState(10 * 60_000, true));
      expect(notice.textContent).toContain(`You have used your 100 likes. More at ${time}.`);
    } finally {
      useServerAhead.setState(0, true);
      vi.useRealTimers();
    }
  });

  it('shows what undo would bring back to someone without the plan, and how few likes are left', () => {
    usePlan.setState({ allowance: { unlimited: false, limit: 100, remaining: 3, resets_at: null } });
    const notices = (
      <>
        <UndoUpsell floating />
        <DeckPlanNotice />
      </>
    );
    const { rerender } = renderAt('/app/home/', notices);
    expect(screen.getByText('3 likes left')).toBeTruthy();
    expect(screen.queryByTestId('undo-upsell')).toBeNull();

    act(() => usePlan.setState({ lastPass: card(5, 'Leo'), notice: 'undo' }));
    rerender(notices);
    const upsell = screen.getByTestId('undo-upsell');
    // Over the card, beside the standing line, which stays.
    expect(upsell.className).toContain('plan-notice-floating');
    expect(screen.getByText('3 likes left')).toBeTruthy();
    expect(upsell.textContent).toContain('Undo is part of Starter. Bring Leo back?');
    fireEvent.click(within(upsell).getByRole('button', { name: en['deck.dismiss'] }));
    expect(usePlan.getState().notice).toBeNull();

    // Not dismissed, it goes with the next decision: it offered back the card passed before that one.
    for (const action of ['skip', 'like'] as const) {
      act(() => usePlan.setState({ lastPass: card(5, 'Leo'), notice: 'undo' }));
      rerender(notices);
      expect(screen.getByTestId('undo-upsell')).toBeTruthy();
      act(() => usePlan.getState().reacted(card(6, 'Mia'), action));
      rerender(notices);
      expect(screen.queryByTestId('undo-upsell')).toBeNull();
    }
  });

  it('puts the undo upsell away once the plan is paid, wherever it was bought', () => {
    useSession.setState({ user: user(false) });
    const view = (
      <>
        <UndoButton />
        <UndoUpsell floating />
      </>
    );
    const { rerender } = renderAt('/app/home/', view);
    act(() => usePlan.getState().reacted(card(5, 'Leo'), 'skip'));
    fireEvent.click(screen.getByRole('button', { name: en['deck.undo'] }));
    expect(screen.getByTestId('undo-upsell').textContent).toContain('Bring Leo back?');
    // Any other change of the account keeps it: only the plan starting answers it.
    act(() => useSession.setState({ user: { ...user(false), email_verified: false } }));
    rerender(view);
    expect(screen.getByTestId('undo-upsell')).toBeTruthy();
    // Paid (the user read again says so): undo works now, and the upsell goes; Leo can still be brought back.
    act(() => useSession.setState({ user: user(true) }));
    rerender(view);
    expect(screen.queryByTestId('undo-upsell')).toBeNull();
    expect(usePlan.getState().notice).toBeNull();
    expect(usePlan.getState().lastPass?.id).toBe(5);
  });

  it('puts what undo needs away when the user leaves the deck or the deck is read again', async () => {
    let deck = [card(6, 'Mia')];
    vi.stubGlobal('fetch', async (path: string) => {
      const { pathname } = new URL(path, 'http://app');
      if (pathname === '/api/matching/allowance/') return Response.json({ unlimited: false, limit: 100, remaining: 50, resets_at: null });
      if (pathname === '/api/users/matching-profiles/') return Response.json({ results: deck, next: null });
      return Response.json({ detail: 'Not found.' }, { status: 404 });
    });
    const home = <Suspense fallback={null}><Home /></Suspense>;
    const askForUndo = async () => {
      await act(async () => fireEvent.click(screen.getByRole('button', { name: en['deck.undo'] })));
      expect(screen.getByTestId('undo-upsell').textContent).toContain('Bring Hugo back?');
    };
    const { unmount } = renderAt('/app/home/', home);
    await waitFor(() => expect(useDeck.getState().current?.id).toBe(6));
    act(() => usePlan.getState().reacted(card(5, 'Hugo'), 'skip'));
    await askForUndo();

    // To another page and back: the deck shows Mia again, with nothing said over her.
    unmount();
    renderAt('/app/home/', home);
    await waitFor(() => expect(screen.getByRole('heading', { level: 2, name: /Mia/ })).toBeTruthy());
    expect(screen.queryByTestId('undo-upsell')).toBeNull();

    // Read again on the deck (as after a preferences save, or at another event): Leo comes up, not under it.
    await askForUndo();
    deck = [card(7, 'Leo')];
    await act(() => useDeck.getState().load());
    expect(useDeck.getState().current?.id).toBe(7);
    expect(screen.queryByTestId('undo-upsell')).toBeNull();
    expect(usePlan.getState().lastPass?.id).toBe(5);
  });

  it('never names, nor offers back, someone who has just blocked the user', async () => {
    const undoButton = () => screen.getByRole('button', { name: en['deck.undo'] });
    const view = (
      <>
        <UndoButton />
        <UndoUpsell floating />
      </>
    );
    // Free plan: Gabi is skipped, then blocks; undo asks for the plan, without her name.
    const { rerender } = renderAt('/app/home/', view);
    act(() => usePlan.getState().reacted(card(5, 'Gabi'), 'skip'));
    act(() => personGone(9));
    await act(async () => fireEvent.click(undoButton()));
    expect(screen.getByTestId('undo-upsell').textContent).toContain('Bring Gabi back?');
    // Someone else's block left her there; hers takes her out, and the offer said over the deck with her.
    act(() => personGone(5));
    rerender(view);
    expect(screen.queryByTestId('undo-upsell')).toBeNull();
    await act(async () => fireEvent.click(undoButton()));
    expect(screen.queryByTestId('undo-upsell')).toBeNull();
    expect(document.body.textContent).not.toContain('Gabi');

    // A subscriber's undo has nothing to bring back once she is gone.
    useSession.setState({ user: user(true) });
    act(() => usePlan.getState().reacted(card(5, 'Gabi'), 'skip'));
    rerender(view);
    expect(undoButton().getAttribute('aria-disabled')).toBe('false');
    act(() => personGone(5));
    rerender(view);
    expect(undoButton().getAttribute('aria-disabled')).toBe('true');
  });

  it('says one like in the singular, and likes from two on', () => {
    for (const [remaining, text] of [
      [1, '1 like left'],
      [2, '2 likes left'],
    ] as const) {
      usePlan.setState({ allowance: { unlimited: false, limit: 100, remaining, resets_at: null } });
      renderAt('/app/home/', <DeckPlanNotice />);
      expect(screen.getByText(text)).toBeTruthy();
      cleanup();
    }
    expect(en['deck.likesLeftOne']).toBe('1 like left');
    expect(es['deck.likesLeftOne']).toBe('Te queda 1 like');
    expect(format(es['deck.likesLeft'], { count: 2 })).toBe('Te quedan 2 likes');
  });

  it('learns at the tap of undo that the plan ended on another device, and shows what undo needs', async () => {
    const { loadUser: realLoadUser } = useSession.getState();
    const { undo: realUndo } = usePlan.getState();
    const loadUser = vi.fn(async () => {});
    useSession.setState({ user: user(true), loadUser });
    usePlan.setState({
      lastPass: card(5, 'Leo'),
      undo: async () => {
        throw new ApiError(403, 'Starter is needed.', 'subscription_required');
      },
    });
    try {
      renderAt('/app/home/', <UndoButton />);
      await act(async () => fireEvent.click(screen.getByRole('button', { name: en['deck.undo'] })));
      expect(loadUser).toHaveBeenCalledTimes(1);
      expect(usePlan.getState().notice).toBe('undo');
    } finally {
      useSession.setState({ loadUser: realLoadUser });
      usePlan.setState({ undo: realUndo });
    }
  });

  it('says nothing to a subscriber', () => {
    usePlan.setState({ allowance: { unlimited: true, limit: null, remaining: null, resets_at: null } });
    const { container } = renderAt('/app/home/', <DeckPlanNotice />);
    expect(container.textContent).toBe('');
  });
});

describe('undo, as the server can undo', () => {
  const [leo, noa, mia] = [card(5, 'Leo'), card(6, 'Noa'), card(7, 'Mia')];

  /**
   * The server's side of the deck for a subscriber, over a stubbed fetch: one card in the deck, and
   * `passes` (latest first) that undo can take back, one at a time and only the one named. Records the
   * `user_id` of each undo and how often the client asked what undo would bring back. `free`: the
   * likes left are the free plan's.
   */
  function serve(passes: DeckCard[], { free = false } = {}) {
    const sent: unknown[] = [];
    let asked = 0;
    vi.stubGlobal('fetch', async (path: string, init: RequestInit) => {
      const route = `${init.method} ${new URL(path, 'http://app').pathname}`;
      if (route === 'GET /api/matching/allowance/') {
        return Response.json(free ? { unlimited: false, limit: 20, remaining: 20, resets_at: null } : { unlimited: true, limit: null, remaining: null, resets_at: null });
      }
      if (route === 'GET /api/users/matching-profiles/') return Response.json({ results: [mia], next: null });
      if (route === 'GET /api/matching/undo/') {
        asked += 1;
        const left = passes[0] ? 60_000 : null;
        return Response.json({ card: passes[0] ?? null, expires_at: left && new Date(Date.now() + left).toISOString(), expires_in_ms: left });
      }
      if (route === 'POST /api/matching/undo/') {
        const { user_id } = JSON.parse(String(init.body)) as { user_id?: number };
        sent.push(user_id);
        if (!passes[0] || passes[0].id !== user_id) return Response.json({ detail: 'Nothing.', code: 'nothing_to_undo' }, { status: 409 });
        return Response.json({ undone: 'skip', card: passes.shift() });
      }
      return Response.json({ detail: 'Not found.' }, { status: 404 });
    });
    return { sent, asked: () => asked };
  }

  const undoButton = () => screen.getByRole('button', { name: en['deck.undo'] });
  const usable = () => undoButton().getAttribute('aria-disabled') === 'false';
  const onTop = () => useDeck.getState().current?.id;

  it('opened after a reload, the deck offers back what the server would, and again after each undo', async () => {
    useSession.setState({ user: user(true) });
    const server = serve([leo, noa]);
    renderAt('/app/home/', <Suspense fallback={null}><Home /></Suspense>);
    await waitFor(() => expect(onTop()).toBe(mia.id));
    await waitFor(() => expect(usable()).toBe(true));

    await act(async () => fireEvent.click(undoButton()));
    await waitFor(() => expect(onTop()).toBe(leo.id));
    // The pass before it, within the window too.
    await waitFor(() => expect(usable()).toBe(true));
    await act(async () => fireEvent.click(undoButton()));
    await waitFor(() => expect(onTop()).toBe(noa.id));
    await waitFor(() => expect(server.asked()).toBe(3));
    expect(usable()).toBe(false);
    expect(server.sent).toEqual([leo.id, noa.id]);
    expect(useDeck.getState().queue?.map((each) => each.id)).toEqual([leo.id, mia.id]);
  });

  it('opened after a reload on the free plan, the deck offers the plan to bring back whom the server names', async () => {
    useSession.setState({ user: user(false) });
    const server = serve([leo], { free: true });
    renderAt('/app/home/', <Suspense fallback={null}><Home /></Suspense>);
    await waitFor(() => expect(onTop()).toBe(mia.id));
    await waitFor(() => expect(usable()).toBe(true));
    await act(async () => fireEvent.click(undoButton()));
    expect(screen.getByTestId('undo-upsell').textContent).toContain('Leo');
    expect(server.sent).toEqual([]);
    expect(server.asked()).toBe(1);
  });

  it('asks again when another phone passed on someone since, and brings back who the server names', async () => {
    useSession.setState({ user: user(true) });
    useDeck.setState({ current: mia, queue: [], exiting: null });
    // Leo was passed on here; Noa since, on the other phone.
    usePlan.getState().reacted(leo, 'skip');
    const server = serve([noa]);
    renderAt('/app/home/', <UndoButton />);
    expect(usable()).toBe(true);

    await act(async () => fireEvent.click(undoButton()));
    expect(server.sent).toEqual([leo.id]);
    expect(onTop()).toBe(mia.id);
    await waitFor(() => expect(usePlan.getState().lastPass?.id).toBe(noa.id));
    expect(usable()).toBe(true);
    await act(async () => fireEvent.click(undoButton()));
    await waitFor(() => expect(onTop()).toBe(noa.id));
    expect(server.sent).toEqual([leo.id, noa.id]);
  });

  it('keeps what this tab passed on over an answer asked before it', async () => {
    useSession.setState({ user: user(true) });
    serve([noa]);
    const asking = usePlan.getState().loadUndo();
    usePlan.getState().reacted(leo, 'dislike');
    await asking;
    expect(usePlan.getState().lastPass?.id).toBe(leo.id);
  });

  it('closes the window when the server says it closes', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      useSession.setState({ user: user(true) });
      vi.stubGlobal('fetch', async () => Response.json({ card: leo, expires_at: new Date(Date.now() + 1000).toISOString(), expires_in_ms: 1000 }));
      await usePlan.getState().loadUndo();
      expect(usePlan.getState().lastPass?.id).toBe(leo.id);
      vi.advanceTimersByTime(1001);
      expect(usePlan.getState().lastPass).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });

  // Phones whose clock runs ten minutes ahead of the server's, or behind it: the server's answer
  // times the window, not a comparison of the server's moment with this phone's clock.
  it.each([
    ['ahead of', 10 * 60_000],
    ['behind', -10 * 60_000],
  ])('keeps the undo button as long as the server allows, with the phone’s clock %s the server’s', async (_, skew) => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      useSession.setState({ user: user(true) });
      const left = 2 * 60_000;
      // The server's own clock, and the window by it.
      const serverNow = () => Date.now() - skew;
      vi.stubGlobal('fetch', async () => Response.json({ card: leo, expires_at: new Date(serverNow() + left).toISOString(), expires_in_ms: left }));
      await usePlan.getState().loadUndo();
      expect(usePlan.getState().lastPass?.id).toBe(leo.id);
      vi.advanceTimersByTime(left - 1000);
      expect(usePlan.getState().lastPass?.id).toBe(leo.id);
      vi.advanceTimersByTime(1001);
      expect(usePlan.getState().lastPass).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });
});
