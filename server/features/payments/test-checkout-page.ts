import { FREE_TRIAL_DAYS } from '../../../shared/constants';
import type { LocalCheckout } from './service';

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

const styles = `
  :root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
  body { margin: 0; background: #f4f4f5; color: #18181b; }
  main { max-width: 28rem; margin: 0 auto; padding: 1.5rem 1rem 3rem; }
  .banner { background: #facc15; color: #18181b; border: 3px dashed #18181b; border-radius: 0.75rem;
    padding: 1rem; font-weight: 800; font-size: 1.25rem; text-align: center; letter-spacing: 0.02em; }
  .card { background: #fff; border-radius: 0.75rem; padding: 1.25rem; margin-top: 1.25rem;
    box-shadow: 0 1px 3px rgb(0 0 0 / 0.12); }
  h1 { font-size: 1.375rem; margin: 0 0 0.75rem; }
  dl { display: grid; grid-template-columns: auto 1fr; gap: 0.5rem 1rem; margin: 0 0 1rem; }
  dt { font-weight: 600; } dd { margin: 0; overflow-wrap: anywhere; }
  p { line-height: 1.5; }
  form { margin: 0.75rem 0 0; }
  button, a.button { display: block; width: 100%; box-sizing: border-box; min-height: 3rem; border-radius: 0.5rem;
    font: inherit; font-weight: 700; font-size: 1.0625rem; cursor: pointer; text-align: center;
    text-decoration: none; padding: 0.75rem 1rem; }
  .complete { background: #15803d; color: #fff; border: 2px solid #15803d; }
  .cancel { background: #fff; color: #b91c1c; border: 2px solid #b91c1c; }
  a.button { background: #1d4ed8; color: #fff; border: 2px solid #1d4ed8; }
  button:focus-visible, a:focus-visible { outline: 3px solid #1d4ed8; outline-offset: 3px; }
`;

function page(title: string, body: string) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${styles}</style>
</head>
<body>
<main>
<p class="banner" role="alert">TEST CHECKOUT — no real payment</p>
${body}
</main>
</body>
</html>`;
}

/** The labelled stand-in for Stripe Checkout when no Stripe key is configured. */
export function renderTestCheckout(checkout: LocalCheckout, subscribeUrl: string): string {
  const details = `<dl>
<dt>Plan</dt><dd>${escapeHtml(checkout.lookupKey)}</dd>
<dt>Account</dt><dd>${escapeHtml(checkout.email)}</dd>
<dt>Trial</dt><dd>${FREE_TRIAL_DAYS}-day free trial</dd>
</dl>`;

  if (checkout.status !== 'open') {
    const state = checkout.status === 'complete' ? 'This checkout is already complete.' : 'This checkout was canceled.';
    return page(
      'Test checkout',
      `<section class="card" aria-labelledby="title">
<h1 id="title">Test checkout</h1>
${details}
<p>${state}</p>
<a class="button" href="${escapeHtml(subscribeUrl)}">Back to the subscribe page</a>
</section>`,
    );
  }

  const action = `/api/payments/test-checkout/${encodeURIComponent(checkout.id)}`;
  return page(
    'Test checkout — no real payment',
    `<section class="card" aria-labelledby="title">
<h1 id="title">Confirm your subscription</h1>
${details}
<p>This server has no Stripe key configured, so no card is asked for and nothing is charged.
Completing activates the subscription exactly as a paid Stripe checkout would.</p>
<form method="post" action="${action}/complete">
<button type="submit" class="complete">Complete test checkout</button>
</form>
<form method="post" action="${action}/cancel">
<button type="submit" class="cancel">Cancel</button>
</form>
</section>`,
  );
}
