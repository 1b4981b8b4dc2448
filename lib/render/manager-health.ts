/**
 * Process-level health of an AWS runner manager. EC2 status checks see a dead instance, not a
 * gitlab-runner that hangs or exited on a live one. A systemd timer on the manager probes the
 * runner's metrics listener (:9252) and, after HEALTH_FAILURE_LIMIT failed probes in a row, reports
 * the instance Unhealthy to its Auto Scaling group (SetInstanceHealth), which replaces it.
 *
 * Why not an ELB target group health check: it needs a load balancer (cost, a listener reaching
 * :9252), and target group names are capped at 32 characters; the timer uses the AWS CLI and
 * instance metadata the manager already has. Google Cloud needs none of this: its managed instance
 * groups autoheal on an HTTP health check of the same port.
 */

/** How often the timer probes the runner. */
export const HEALTH_CHECK_INTERVAL = "30s";
/** Failed probes in a row before the instance is reported Unhealthy (about 2 minutes of silence). */
export const HEALTH_FAILURE_LIMIT = 4;
/** Seconds one probe may take. */
export const HEALTH_PROBE_TIMEOUT_SECONDS = 10;
