/**
 * Which autoscaling policy is in force at each minute of a simulation, read from the trace's real
 * dates (so a daylight-saving change moves office hours as it moves them for gitlab-runner).
 *
 * gitlab-runner's docker-autoscaler applies the last policy whose periods match the current time;
 * none matching means no idle capacity and idle instances removed at once
 * (docs.gitlab.com/runner/executors/docker_autoscaler/, "[[runners.autoscaler.policy]]": "If multiple
 * policies are defined, the last matching policy is used"). Periods are cron expressions in
 * gorhill/cronexpr's dialect, read in the policy's time zone: the project's own port
 * (lib/model/cronexpr.ts, lib/model/cronexpr-match.ts). A minute counts as matching when the period
 * selects any second of it, as lib/cost/policy-time.ts does for the cost estimate.
 */
import { localClock } from "../cost/policy-time";
import { parseCronexpr, type CronexprSchedule } from "../model/cronexpr";
import { cronexprMatchesMinute } from "../model/cronexpr-match";

export interface TimelinePolicy {
  readonly periods: readonly string[];
  readonly timezone: string;
}

/** No policy matches: gitlab-runner keeps no idle capacity. */
export const NO_POLICY = -1;

const CHUNK_MINUTES = 24 * 60;

/** Timelines made lately, by their periods, time zones and start: see PolicyTimeline.shared. */
const recent = new Map<string, PolicyTimeline>();
const RECENT_TIMELINES = 16;

export class PolicyTimeline {
  /**
   * The timeline of these policies' periods from `startSeconds`, the same object for the same periods,
   * time zones and start: a timeline depends on nothing else, and matching a week of minutes against
   * cron periods is a good part of a simulation. `--target-wait` simulates a shard dozens of times
   * with only idle counts changed.
   */
  static shared(policies: readonly TimelinePolicy[], startSeconds: number): PolicyTimeline {
    const key = JSON.stringify([startSeconds, policies.map((policy) => [policy.timezone, policy.periods])]);
    let timeline = recent.get(key);
    if (!timeline) {
      timeline = new PolicyTimeline(policies, startSeconds);
      if (recent.size >= RECENT_TIMELINES) recent.delete(recent.keys().next().value!);
      recent.set(key, timeline);
    }
    return timeline;
  }

  private readonly schedules: CronexprSchedule[][];
  private readonly clocks: ((utcMs: number) => number)[];
  private byMinute = new Int16Array(0);
  private known = 0;

  /** `startSeconds`: Unix seconds of minute 0 (a whole minute). */
  constructor(
    private readonly policies: readonly TimelinePolicy[],
    private readonly startSeconds: number,
  ) {
    this.schedules = policies.map((policy) => policy.periods.map(parsed));
    this.clocks = policies.map((policy) => localClock(policy.timezone));
  }

  /** Index of the policy in force in minute `minute` after the start, or NO_POLICY. */
  at(minute: number): number {
    if (minute < 0) minute = 0;
    while (minute >= this.known) this.extend();
    return this.byMinute[minute];
  }

  private extend(): void {
    const grown = new Int16Array(this.known + CHUNK_MINUTES);
    grown.set(this.byMinute);
    for (let minute = this.known; minute < grown.length; minute += 1) {
      const utcMs = (this.startSeconds + minute * 60) * 1000;
      let inForce = NO_POLICY;
      for (let index = this.policies.length - 1; index >= 0 && inForce === NO_POLICY; index -= 1) {
        const wallClock = this.clocks[index](utcMs);
        if (this.schedules[index].some((schedule) => cronexprMatchesMinute(schedule, wallClock))) inForce = index;
      }
      grown[minute] = inForce;
    }
    this.byMinute = grown;
    this.known = grown.length;
  }
}

function parsed(period: string): CronexprSchedule {
  const result = parseCronexpr(period);
  // The model loader refuses periods cronexpr refuses; one reaching here is a programming error.
  if (!result.ok) throw new Error(`not a cronexpr period ${JSON.stringify(period)}: ${result.reason}`);
  return result.schedule;
}
