/** The job kernel: the job contract (job.ts), the one run path (run.ts), outcomes classified once. */

export { scrubSecrets } from '../runtime/secrets.js';
export { type FollowUps, runFollowUps } from './follow-ups.js';
export * from './job.js';
export {
  classifyFailure,
  FAILURE_REASONS,
  type Failure,
  type FailureReason,
  failureReason,
} from './outcome.js';
export { type RetryRejectedResult, retryRejectedRecords } from './retry-rejected.js';
export {
  type ContextParts,
  createJobContext,
  describeError,
  newBooks,
  type RunBooks,
  type RunDeps,
  type RunRequest,
  type RunSummary,
  runHandler,
  runJob,
} from './run.js';
