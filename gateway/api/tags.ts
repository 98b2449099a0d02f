/** The OpenAPI tags routes are grouped under, with their descriptions. */
export const API_TAGS: Readonly<Record<string, string>> = {
  Scrape: 'Fetch a page through the fetch tiers, poll its job, price it in advance.',
  Artifacts: 'Screenshots and PDFs of rendered pages, at the unguessable URLs a scrape result gives, for 24 hours.',
  Deprecated: 'The per-mode scrape routes, each mapped onto POST /api/v1/scrape until their sunset date.',
  Extract: 'Run the content pipeline on content you supply.',
  Map: "List a site's URLs from robots.txt, sitemaps and links; the account's history of maps.",
  Sessions: 'Stored sessions: the cookies of a logged-in visit, kept encrypted, that scrapes use with advanced.session_id.',
  Crawl: 'Crawl a site: discovery and scraping of its pages, progress, history, cancel, resume and a live event stream.',
  Health: 'Probes and status; no API key needed.',
  Accounts: 'Registration, login and sessions, the current user, the welcome bonus and the legacy-key notice.',
  Organizations: 'Organizations with an account of their own, and their members; act on one with X-Organization-Id.',
  Billing: "The balance and its tier, usage, deposits through the payment provider's checkout, and the provider's webhook.",
  'API keys': 'Create, list, rename, revoke, regenerate and reveal API keys; per-key request limits and spend budgets; per-key usage from the request logs.',
  Webhooks:
    'Subscriptions that receive account events as signed HTTPS POSTs (at most 10 per user), their deliveries and secrets; the secret that signs per-request webhook_url deliveries. The events themselves are under `webhooks`.',
  OAuth: "The authorization-code flow that gives an integration (n8n and others) an API key of the user's account.",
};
