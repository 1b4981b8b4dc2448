/**
 * What the fleet's alerts mean, once for both clouds: Google Cloud evaluates them as PromQL on the runner's
 * own metrics (constructs/google/fleet-monitoring.ts), AWS as CloudWatch metric filters on gitlab-runner's
 * JSON log (constructs/aws/fleet-monitoring.ts). test/constructs/fleet-alert-meaning.test.ts runs the same
 * cases through both and expects the same answer.
 */

/**
 * Jobs failing for the fleet's reasons. gitlab-runner logs "Job failed (system failure): ..." and counts
 * failure_reason="runner_system_failure" when a job ends with an error that is not the job's own (a BuildError:
 * script failure, timeout, image pull) - common/build.go, setTraceStatus. Finished jobs: every job that ended
 * ("Job succeeded" or "Job failed..." in the log; gitlab_runner_job_duration_seconds_count, observed when a job
 * ends). Windows with fewer finished jobs than the minimum never fire: one failed job of one does not page.
 */
export const JOB_FAILURE_ALERT = {
  windowSeconds: 15 * 60,
  minimumFinishedJobs: 10,
  failureReason: "runner_system_failure",
} as const;

/**
 * Job requests GitLab does not answer with a job or "no job": a revoked token (403), a broken certificate,
 * DNS or egress (a transport error), GitLab down (5xx). Every VM stays healthy and /metrics keeps answering,
 * so only this sees a fleet that cannot work. gitlab-runner logs each failed request (network/gitlab.go,
 * RequestJob): "Checking for jobs... forbidden" (403), "... client error" (transport), "... GitLab instance
 * currently unavailable" (503), "... failed" (any other status, with a `status` field). 201 (a job), 204 (no
 * job: logged at debug only) and 409 (GitLab's request conflict under load, retried) are not failures.
 * Both clouds count these log lines: gitlab_runner_api_request_statuses_total never counts a transport error
 * (network/api_requests_collector.go, Observe: `if status == clientError { return }`, in every 18.x and 19.x
 * release), so a metric-based alert is blind to a broken NAT, CA or DNS. After unhealthy_requests_limit (3)
 * failures a runner waits unhealthy_interval (60s), so one manager with a revoked token makes about 10 failed
 * requests in 10 minutes: the threshold is below that.
 */
export const JOB_REQUEST_FAILURE_ALERT = {
  windowSeconds: 10 * 60,
  threshold: 5,
  notFailedStatuses: ["201", "204", "409"],
  /** The `msg` of every failed job request's log line. */
  failedMessages: [
    "Checking for jobs... forbidden",
    "Checking for jobs... client error",
    "Checking for jobs... GitLab instance currently unavailable",
    // A transport error in gitlab-runner 16 and earlier (16.0 network/gitlab.go); kept for managers on an older runner.
    "Checking for jobs... error",
  ],
  /** The line of any other status; a failure unless its `status` is 409 ("409 Conflict"). */
  otherStatusMessage: "Checking for jobs... failed",
  conflictStatus: "409 Conflict",
} as const;
