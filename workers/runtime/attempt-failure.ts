import type { ReportExtra } from './reporter.js';

/**
 * A classified end of an attempt that a pool reports rather than retries:
 * the target refused, the input is gone, no slot freed in time. The report
 * carries its code, message and whatever the pool learned on the way.
 */
export class AttemptFailure extends Error {
  constructor(
    /** A public error code, or a fetch classification the control plane maps (BLOCKED). */
    readonly code: string,
    message: string,
    readonly report: ReportExtra = {},
  ) {
    super(message);
    this.name = 'AttemptFailure';
  }
}
