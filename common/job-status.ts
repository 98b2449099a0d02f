/** A job in one of these states never changes again: its record, and so its answer, stay as they are. */
const ENDED_JOB_STATUSES: ReadonlySet<string> = new Set(['succeeded', 'failed', 'rejected']);

export function isEndedJob(status: string): boolean {
  return ENDED_JOB_STATUSES.has(status);
}
