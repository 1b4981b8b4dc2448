/**
 * Whether a shard's autoscaling policies cover every hour. Outside every policy's periods gitlab-runner's
 * taskscaler falls back to a zero policy (idle_count 0, idle_time 0): a worker is removed the moment it goes
 * idle, so max_use_count reuse is lost off-hours, and gitlab-org/gitlab issue 552226 reports workers removed
 * during a job in that state. When the model leaves hours uncovered, config.toml gets a leading catch-all
 * policy (the last matching policy wins, so the model's own still apply in their periods) that keeps idle
 * workers for the first policy's idle_time, and prepare warns.
 */
import { parseCronexpr } from "./cronexpr";
import type { AutoscalingPolicy, Shard } from "./schema";

/** The period of the rendered catch-all policy: every minute. */
export const CATCH_ALL_PERIOD = "* * * * *";

/** Whether a period selects every minute of every day (whatever the time zone). */
export function coversEveryMinute(period: string): boolean {
  const parsed = parseCronexpr(period);
  if (!parsed.ok) return false;
  const { minutes, hours, daysOfMonth, daysOfWeek, months, years } = parsed.schedule;
  return (
    minutes.size === 60 &&
    hours.size === 24 &&
    !daysOfMonth.restricted &&
    !daysOfWeek.restricted &&
    months.size === 12 &&
    years.has(new Date().getUTCFullYear())
  );
}

/** Whether no policy of the shard applies at all hours, so a catch-all must come first. */
export function needsCatchAllPolicy(policies: readonly AutoscalingPolicy[]): boolean {
  return !policies.some((policy) => policy.periods.some(coversEveryMinute));
}

/** The catch-all policy rendered first for `shard`, or undefined when its policies cover every hour. */
export function catchAllPolicy(shard: Shard): AutoscalingPolicy | undefined {
  const { policies } = shard.autoscaling;
  if (!needsCatchAllPolicy(policies)) return undefined;
  return { periods: [CATCH_ALL_PERIOD], timezone: "UTC", idle_count: 0, idle_time: policies[0].idle_time, scale_factor: 0 };
}

/**
 * The policies config.toml carries, in its order: a leading catch-all when the model's leave hours
 * uncovered, then the model's. The simulator replays the same list, so uncovered hours run under the
 * catch-all there too.
 */
export function policiesWithCatchAll(shard: Shard): AutoscalingPolicy[] {
  const catchAll = catchAllPolicy(shard);
  return catchAll === undefined ? [...shard.autoscaling.policies] : [catchAll, ...shard.autoscaling.policies];
}
