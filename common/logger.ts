import { pino, type Logger } from 'pino';

export type { Logger };

/** The one logger. Secrets are redacted by path so they never reach logs. */
export function createLogger(name: string, level: string): Logger {
  return pino({
    name,
    level,
    redact: {
      paths: ['apiKey', 'key', 'headers["x-api-key"]', 'req.headers["x-api-key"]', 'secret', 'password'],
      censor: '[redacted]',
    },
  });
}
