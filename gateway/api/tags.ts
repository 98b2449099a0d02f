/** The OpenAPI tags routes are grouped under, with their descriptions. */
export const API_TAGS: Readonly<Record<string, string>> = {
  Scrape: 'Fetch a page through the fetch tiers, poll its job, price it in advance.',
  Deprecated: 'The per-mode scrape routes, each mapped onto POST /api/v1/scrape until their sunset date.',
  Extract: 'Run the content pipeline on content you supply.',
  Health: 'Probes and status; no API key needed.',
};
