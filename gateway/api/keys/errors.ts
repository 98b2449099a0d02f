/** The refusal of a request that admits a job (scrape, extract) when its API key's spend budget would be passed. */
export const KEY_BUDGET_ERROR = "KEY_BUDGET_EXCEEDED (the API key's spend budget for its period would be passed; details: budget_limit_microcents, spent_microcents, required_microcents, reset_period, period_end)";
