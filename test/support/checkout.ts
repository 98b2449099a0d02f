import { expect } from 'chai';
import { Agent, fetch as undiciFetch } from 'undici';
import type { TestStack } from './stack.js';
import type { TestUser } from './users.js';

export const CHECKOUT_URLS = { success_url: 'https://app.example/billing/paid', cancel_url: 'https://app.example/billing' };

/**
 * Each checkout call comes from its own loopback address, so the per-address
 * limit on POST /api/v1/billing/checkout (5 a minute) never mixes tests up.
 */
let lastOctet = 20;

/** A loopback address no checkout call used before. */
export function checkoutAddress(): string {
  return `127.0.0.${lastOctet++}`;
}

/** POST /api/v1/billing/checkout with these headers and body, from a loopback address of its own unless one is given. */
export async function checkout(stack: TestStack, headers: Record<string, string>, body: unknown, address = checkoutAddress()): Promise<{ status: number; body: any }> {
  const dispatcher = new Agent({ localAddress: address });
  try {
    const res = await undiciFetch(`${stack.baseUrl}/api/v1/billing/checkout`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      dispatcher,
    });
    return { status: res.status, body: await res.json() };
  } finally {
    await dispatcher.close();
  }
}

/** Pays `usd` in as a user does: a checkout session opened, then the provider's signed webhook telling it was paid. */
export async function payIn(stack: TestStack, user: TestUser, usd: number): Promise<void> {
  const opened = await checkout(stack, { Authorization: `Bearer ${user.token}` }, { amount_usd: usd, ...CHECKOUT_URLS });
  expect(opened.status, JSON.stringify(opened.body)).to.equal(201);
  const paid = await stack.payments.completeSession(opened.body.session_id, `${stack.baseUrl}/api/v1/billing/webhook`);
  expect(paid.body, 'the webhook answer').to.deep.equal({ received: true, outcome: 'deposited' });
}
