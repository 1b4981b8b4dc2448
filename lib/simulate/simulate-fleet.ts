/**
 * A discrete-event simulation of one shard: its managers, each with a worker group autoscaled by
 * taskscaler (gitlab-org/fleeting/taskscaler) as gitlab-runner's docker-autoscaler executor drives it,
 * replaying the shard's jobs. Sources (cited where each rule is applied below):
 * - [AUTOSCALER] docs.gitlab.com/runner/executors/docker_autoscaler/ ("[[runners.autoscaler.policy]]",
 *   "[runners.autoscaler]"): idle_count is idle capacity in job slots; idle_time how long idle capacity
 *   is kept; scale_factor the idle capacity as a factor of the capacity in use, scale_factor_limit
 *   the most it yields; capacity_per_instance jobs per instance; max_use_count jobs before an instance
 *   is removed; max_instances the instances of the worker group; the last matching policy wins.
 * - [RESERVE] gitlab-runner v19.3.0 commands/multi.go `processRunner`: a worker takes a job slot
 *   (`acquireBuild`, bounded by limit and concurrent), a request slot (`acquireRequest`), then
 *   `provider.Acquire`, which is executors/internal/autoscaler/provider.go `Acquire` calling taskscaler
 *   `Reserve` before the job request is sent; `Release` unreserves when no job came (merge request
 *   3813, "Prevent new autoscaler thrashing instances"). So every request in flight holds a
 *   reservation, and a reservation is capacity taskscaler keeps or creates.
 * - [PREEMPTIVE] common/config.go `AutoscalerPolicyConfig.PreemptiveModeEnabled`: `preemptive_mode`
 *   when set, else `idle_count > 0`; provider.go passes it to taskscaler per schedule. Preemptive, a
 *   reservation needs an idle slot of a ready instance (no job is asked for without one, so a boot
 *   wait falls before the pickup, in GitLab's queued_duration); not preemptive, "jobs are requested
 *   first, and then the system attempts to find or provision the necessary capacity" (runner docs,
 *   [[runners.autoscaler.policy]] preemptive_mode; docs/executors/instance.md "Preemptive mode"): the
 *   job is taken at once and waits for its instance after (in the job's log, "Preparing the
 *   docker-autoscaler executor"). scale_factor alone does not make a policy preemptive.
 * - [MAX] runner docs, [runners.autoscaler] max_instances: "regardless of the instance state
 *   (pending, running, deleting)": an instance being deleted still counts, and is billed until gone.
 * - [ADVANCED] docs.gitlab.com/runner/configuration/advanced-configuration/: `concurrent` bounds the
 *   jobs of a manager, `limit` those of a [[runners]] entry (rendered as max_instances x
 *   capacity_per_instance), `check_interval` the seconds between a runner's requests for jobs
 *   (after a job is received it asks again at once).
 * - gitlab-runner issue 37673 (taskscaler log "instance exceeded max idle time"): idle instances are
 *   removed once idle past idle_time, while the idle capacity left still meets the target.
 *
 * Assumptions where the source does not say (taskscaler's own code is not in gitlab-runner; these are
 * printed with every report, see SIMULATION_ASSUMPTIONS): each manager keeps one job request in flight
 * while it is under its job ceiling (GitLab's long polling holds it; adaptive request_concurrency,
 * FF_USE_ADAPTIVE_REQUEST_CONCURRENCY on by default, adds requests only while jobs keep coming, and
 * those return with a job at once), and taskscaler counts its reservation as capacity in use, on top
 * of the idle target; instances are created as soon as capacity is wanted; idle instances are checked
 * for removal once a minute (taskscaler's periodic loop; its cadence is not documented), the most
 * recently added idle instance first; reservation throttling (reservation_throttling, taskscaler merge
 * request 60) is not modelled: it limits reservations only where request_concurrency above 1 holds
 * many at once. Also simplified: GitLab hands out a shard's jobs oldest first; managers poll at evenly
 * spread phases; an instance whose boot ends is ready (boot failures are not modelled); a job that
 * waits for its instance past instance_acquire_timeout is not failed.
 *
 * Spot instances (optional): each is reclaimed after an exponentially distributed lifetime at
 * `spotInterruptionsPerHour`; its jobs fail and are retried, as `retry: when: runner_system_failure`
 * does (docs/operations/workers.md, "Spot workers and retries"): a retry is a new job in GitLab's queue from the moment of
 * the reclaim. A job's wait adds up its waits over its attempts.
 *
 * Times inside are seconds from the window's start. Deterministic: the same jobs, fleet and seed give
 * the same result (randomness is drawn only for spot lifetimes, from a seeded generator).
 */
import { EventHeap } from "./event-heap";
import { BOOTING, DELETING, InstanceTable, LIVE_READY, REMOVED } from "./instance-table";
import type { FleetConfig, SimulatedPolicy } from "./fleet-config";
import { NO_POLICY, PolicyTimeline } from "./policy-timeline";
import { seededRandom, type Random } from "./seeded-random";
import { preemptiveModeEnabled, REQUESTS_IN_FLIGHT } from "../model/job-reservations";

const { ceil, floor, log, max, min } = Math;
const INFINITY = Number.POSITIVE_INFINITY;

export interface FleetLoad {
  /** Creation times (Unix seconds), ascending. */
  readonly createdAt: Float64Array;
  readonly duration: Float64Array;
}

export interface SimulationWindow {
  /** Unix seconds of the start: a whole minute. Jobs before it are not in the load. */
  readonly startSeconds: number;
  /** Unix seconds of the end: cost and instance-hours are counted up to here. */
  readonly endSeconds: number;
}

export interface FleetRun {
  /** Per job: from creation until it started on an instance slot. */
  readonly waitSeconds: Float64Array;
  /** Per job: from creation until a manager took it from GitLab (what GitLab records as queued_duration). */
  readonly pickupSeconds: Float64Array;
  /** Instance-seconds within the window: all instances (booting, idle, busy), and busy ones (running a job). */
  readonly instanceSeconds: number;
  readonly busyInstanceSeconds: number;
  /** Jobs that waited while every manager was at max_instances, or at concurrent (or limit). */
  readonly waitedOnMaxInstances: number;
  readonly waitedOnConcurrent: number;
  readonly instancesCreated: number;
  readonly peakInstances: number;
  /** Per hour of the window: average demand (jobs running or waiting) and capacity (slots of live instances). */
  readonly hourlyDemand: Float64Array;
  readonly hourlyCapacity: Float64Array;
  /** Spot instances reclaimed, and job attempts they ended (each retried). */
  readonly spotInterruptions: number;
  readonly jobsInterrupted: number;
}

const READY = 1;
const FINISH = 2;
const POLL = 3;
const RECLAIM = 4;
const DELETED = 5;

const WAITING = 0;
const RUNNING = 1;
const DONE = 2;


const TICK_SECONDS = 60;


/** What the simulation assumes where gitlab-runner's source does not say; reports print it. */
export const SIMULATION_ASSUMPTIONS = {
  requests_in_flight_per_manager: REQUESTS_IN_FLIGHT,
  removal_check_seconds: TICK_SECONDS,
  removal_order: "most recently added idle instance first",
  reservation_throttling: "not modelled",
} as const;

export function simulateFleet(config: FleetConfig, load: FleetLoad, window: SimulationWindow): FleetRun {
  return new FleetSimulation(oneShape(config), load, window).run();
}

/**
 * The config as one object shape, whatever built it: optional fields present (undefined when unset),
 * always in this order. The event loop reads the config millions of times; configs of several shapes
 * (a shard with scale_factor_limit or spot workers, the copies `--target-wait` makes with another
 * idle_count) made V8 drop its optimized code again and again, several times slower.
 */
function oneShape(config: FleetConfig): FleetConfig {
  // Every field named, so a field added to FleetConfig or SimulatedPolicy must be added here too.
  const shaped: AllFields<FleetConfig> = {
    managers: config.managers,
    concurrent: config.concurrent,
    capacityPerInstance: config.capacityPerInstance,
    maxUseCount: config.maxUseCount,
    maxInstances: config.maxInstances,
    policies: config.policies.map((policy): AllFields<SimulatedPolicy> => ({
      periods: policy.periods,
      timezone: policy.timezone,
      idleCount: policy.idleCount,
      idleTimeSeconds: policy.idleTimeSeconds,
      scaleFactor: policy.scaleFactor,
      scaleFactorLimit: policy.scaleFactorLimit,
      preemptiveMode: policy.preemptiveMode,
      modelIndex: policy.modelIndex,
    })),
    bootSeconds: config.bootSeconds,
    deleteSeconds: config.deleteSeconds,
    checkIntervalSeconds: config.checkIntervalSeconds,
    spotInterruptionsPerHour: config.spotInterruptionsPerHour,
    seed: config.seed,
  };
  return shaped;
}

/** Each field of T present, an optional one possibly undefined. */
type AllFields<T> = { [K in keyof Required<T>]: {} extends Pick<T, K> ? T[K] | undefined : T[K] };

class FleetSimulation {
  private readonly heap = new EventHeap();
  private readonly timeline: PolicyTimeline;
  private readonly jobCount: number;
  private readonly created: Float64Array;
  private readonly waits: Float64Array;
  private readonly pickups: Float64Array;
  /** Since when each job waits in GitLab's queue: its creation, or the reclaim that ended its last attempt. */
  private readonly queuedSince: Float64Array;
  private readonly jobState: Uint8Array;
  private readonly jobInstance: Int32Array;
  /** When each job's running attempt ends: a FINISH event at another time belongs to an attempt a reclaim ended. */
  private readonly finishAt: Float64Array;
  /** Retries of reclaimed jobs, oldest first, served with the arrivals in order of queuedSince. */
  private readonly retries: number[] = [];
  private retryHead = 0;
  private readonly random: Random | undefined;
  private spotInterruptions = 0;
  private jobsInterrupted = 0;
  private readonly windowEnd: number;
  /** Slots a new instance offers: capacity_per_instance, or fewer when max_use_count is lower. */
  private readonly slotsPerInstance: number;
  /** Jobs one manager may hold: concurrent, and limit (max_instances x capacity_per_instance). */
  private readonly jobCeiling: number;
  private readonly ceilingIsConcurrent: boolean;

  private readonly instances = new InstanceTable();

  // Managers.
  private readonly live: number[][];
  private readonly freeStack: number[][];
  private readonly pending: number[][];
  private readonly pendingHead: number[];
  private readonly freeSlots: Int32Array;
  /** Instances removed but not yet deleted by the cloud, per manager: they count toward max_instances. */
  private readonly deleting: Int32Array;
  private readonly running: Int32Array;
  private readonly pollAt: Float64Array;

  // The shard.
  private policy = NO_POLICY;
  private arrived = 0;
  private queueHead = 0;
  private finished = 0;
  private runningTotal = 0;
  private pendingTotal = 0;
  private liveTotal = 0;
  private deletingTotal = 0;
  private busyInstances = 0;
  private lastTime = 0;
  private lastBlockedOnMax = -INFINITY;
  private lastBlockedOnConcurrent = -INFINITY;

  private instanceSeconds = 0;
  private busyInstanceSeconds = 0;
  private waitedOnMaxInstances = 0;
  private waitedOnConcurrent = 0;
  private peakInstances = 0;
  private readonly hourlyDemand: Float64Array;
  private readonly hourlyCapacity: Float64Array;

  constructor(
    private readonly config: FleetConfig,
    private readonly load: FleetLoad,
    window: SimulationWindow,
  ) {
    this.jobCount = load.createdAt.length;
    this.created = new Float64Array(this.jobCount);
    for (let job = 0; job < this.jobCount; job += 1) this.created[job] = load.createdAt[job] - window.startSeconds;
    this.waits = new Float64Array(this.jobCount);
    this.pickups = new Float64Array(this.jobCount);
    this.queuedSince = Float64Array.from(this.created);
    this.jobState = new Uint8Array(this.jobCount);
    this.jobInstance = new Int32Array(this.jobCount);
    this.finishAt = new Float64Array(this.jobCount);
    this.random = (config.spotInterruptionsPerHour ?? 0) > 0 ? seededRandom(config.seed ?? 1) : undefined;
    this.windowEnd = window.endSeconds - window.startSeconds;
    this.timeline = PolicyTimeline.shared(config.policies, window.startSeconds);
    this.slotsPerInstance = config.maxUseCount > 0 ? min(config.capacityPerInstance, config.maxUseCount) : config.capacityPerInstance;
    const limit = config.maxInstances * config.capacityPerInstance;
    this.jobCeiling = min(config.concurrent, limit);
    this.ceilingIsConcurrent = config.concurrent < limit;
    const managers = config.managers;
    this.live = Array.from({ length: managers }, () => []);
    this.freeStack = Array.from({ length: managers }, () => []);
    this.pending = Array.from({ length: managers }, () => []);
    this.pendingHead = new Array<number>(managers).fill(0);
    this.freeSlots = new Int32Array(managers);
    this.deleting = new Int32Array(managers);
    this.running = new Int32Array(managers);
    this.pollAt = new Float64Array(managers).fill(-1);
    const hours = max(1, ceil(this.windowEnd / 3600));
    this.hourlyDemand = new Float64Array(hours);
    this.hourlyCapacity = new Float64Array(hours);
  }

  run(): FleetRun {
    // The fleet starts as the policy in force at the start wants it: its idle capacity and the slots its
    // requests in flight reserve, ready.
    this.policy = this.timeline.at(0);
    const requests = this.jobCeiling > 0 ? REQUESTS_IN_FLIGHT : 0;
    for (let manager = 0; manager < this.config.managers; manager += 1) {
      const wanted = min(this.config.maxInstances, ceil((this.idleTarget(manager) + requests) / this.slotsPerInstance));
      for (let count = 0; count < wanted; count += 1) this.markReady(this.create(manager, 0), 0);
    }
    let tick = 1;
    for (;;) {
      const nextArrival = this.arrived < this.jobCount ? this.created[this.arrived] : INFINITY;
      const nextTick = tick * TICK_SECONDS;
      const nextEvent = this.heap.peekTime();
      if (this.finished === this.jobCount && nextTick > this.windowEnd) break;
      // At one moment: the minute's policy first (a switch at a period's edge holds from its first
      // second), then instances ready and jobs finished (capacity freed), then new jobs.
      if (nextTick <= nextEvent && nextTick <= nextArrival) {
        this.advance(nextTick);
        this.onTick(nextTick, tick);
        tick += 1;
      } else if (nextEvent <= nextArrival) {
        this.advance(nextEvent);
        const kind = this.heap.peekKind();
        const subject = this.heap.peekSubject();
        this.heap.pop();
        if (kind === READY) this.onReady(subject, nextEvent);
        else if (kind === FINISH) this.onFinish(subject, nextEvent);
        else if (kind === POLL) this.onPoll(subject, nextEvent);
        else if (kind === DELETED) this.onDeleted(subject, nextEvent);
        else this.onReclaim(subject, nextEvent);
      } else {
        this.advance(nextArrival);
        this.arrived += 1;
        this.dispatch(nextArrival);
      }
    }
    this.advance(max(this.lastTime, this.windowEnd));
    return {
      waitSeconds: this.waits,
      pickupSeconds: this.pickups,
      instanceSeconds: this.instanceSeconds,
      busyInstanceSeconds: this.busyInstanceSeconds,
      waitedOnMaxInstances: this.waitedOnMaxInstances,
      waitedOnConcurrent: this.waitedOnConcurrent,
      instancesCreated: this.instances.count,
      peakInstances: this.peakInstances,
      hourlyDemand: this.hourlyDemand.map((area) => area / 3600),
      hourlyCapacity: this.hourlyCapacity.map((area) => area / 3600),
      spotInterruptions: this.spotInterruptions,
      jobsInterrupted: this.jobsInterrupted,
    };
  }

  /** Accounts the time since the last event (no interval crosses a minute: ticks are events). */
  private advance(time: number): void {
    const from = min(this.lastTime, this.windowEnd);
    const to = min(time, this.windowEnd);
    if (to > from) {
      const span = to - from;
      // A deleting instance is billed until the cloud has deleted it [MAX].
      this.instanceSeconds += (this.liveTotal + this.deletingTotal) * span;
      this.busyInstanceSeconds += this.busyInstances * span;
      const hour = min(this.hourlyDemand.length - 1, floor(from / 3600));
      this.hourlyDemand[hour] += (this.runningTotal + this.pendingTotal + this.arrived - this.queueHead + this.retries.length - this.retryHead) * span;
      this.hourlyCapacity[hour] += this.liveTotal * this.config.capacityPerInstance * span;
    }
    this.lastTime = time;
  }

  // --- taskscaler: capacity wanted, instances created and removed ------------------------------

  /**
   * Idle slots a manager wants [AUTOSCALER]: idle_count, or scale_factor x the slots in use when
   * that is more, bounded by scale_factor_limit (0 or unset: unbounded, as taskscaler reads 0).
   */
  private idleTarget(manager: number): number {
    if (this.policy === NO_POLICY) return 0;
    const policy = this.config.policies[this.policy];
    if (policy.scaleFactor <= 0) return policy.idleCount;
    const inUse = this.running[manager] + this.pendingCount(manager);
    let scaled = ceil(inUse * policy.scaleFactor);
    if (policy.scaleFactorLimit !== undefined && policy.scaleFactorLimit > 0) scaled = min(scaled, policy.scaleFactorLimit);
    return max(policy.idleCount, scaled);
  }

  /**
   * Preemptive: a job is asked for only once an idle slot of a ready instance is reserved [PREEMPTIVE]:
   * preemptive_mode when set, else idle_count > 0. No policy in force: taskscaler's zero policy, not preemptive.
   */
  private preemptive(): boolean {
    if (this.policy === NO_POLICY) return false;
    const policy = this.config.policies[this.policy];
    return preemptiveModeEnabled(policy.preemptiveMode, policy.idleCount);
  }

  /** Instances of the manager that count toward max_instances: live (booting, ready) and deleting [MAX]. */
  private counted(manager: number): number {
    return this.live[manager].length + this.deleting[manager];
  }

  /**
   * Slots the manager's requests in flight hold reserved [RESERVE]: none at its job ceiling (no job
   * slot, so no request); preemptive, only while an unclaimed slot of a ready instance is there to
   * reserve; otherwise while there is room for the capacity (a free slot, or an instance to create).
   */
  private reserved(manager: number): number {
    const pending = this.pendingCount(manager);
    if (this.running[manager] + pending >= this.jobCeiling) return 0;
    const unclaimed = this.freeSlots[manager] - pending;
    if (this.preemptive()) return unclaimed > 0 && this.readySlot(manager) >= 0 ? min(REQUESTS_IN_FLIGHT, unclaimed) : 0;
    const room = unclaimed + (this.config.maxInstances - this.counted(manager)) * this.slotsPerInstance;
    return max(0, min(REQUESTS_IN_FLIGHT, room));
  }

  /** Slots the manager wants: jobs taken and waiting for a slot, reservations, and the idle target on top. */
  private wantedSlots(manager: number): number {
    return this.pendingCount(manager) + this.reserved(manager) + this.idleTarget(manager);
  }

  /** Creates the instances the manager's wanted slots need, up to max_instances (deleting ones count). */
  private scaleUp(manager: number, time: number): void {
    const deficit = this.wantedSlots(manager) - this.freeSlots[manager];
    if (deficit <= 0) return;
    const room = this.config.maxInstances - this.counted(manager);
    const count = min(room, ceil(deficit / this.slotsPerInstance));
    for (let index = 0; index < count; index += 1) this.create(manager, time);
  }

  private create(manager: number, time: number): number {
    const instance = this.instances.add(manager);
    this.instances.livePosition[instance] = this.live[manager].length;
    this.live[manager].push(instance);
    this.liveTotal += 1;
    this.peakInstances = max(this.peakInstances, this.liveTotal + this.deletingTotal);
    this.freeSlots[manager] += this.slotsPerInstance;
    this.heap.push(time + this.config.bootSeconds, READY, instance);
    if (this.random) this.heap.push(time - (log(1 - this.random()) / this.config.spotInterruptionsPerHour!) * 3600, RECLAIM, instance);
    return instance;
  }

  /**
   * Taskscaler removes an instance: its slots go at once; it stays, deleting, until `time` +
   * deleteSeconds, counted toward max_instances and billed [MAX]. A reclaimed spot instance is gone
   * at once (`time` undefined): the cloud took it.
   */
  private remove(instance: number, time?: number): void {
    const manager = this.instances.owner[instance];
    this.freeSlots[manager] -= this.slots(instance);
    const deleteSeconds = this.config.deleteSeconds ?? 0;
    if (time !== undefined && deleteSeconds > 0) {
      this.instances.state[instance] = DELETING;
      this.deleting[manager] += 1;
      this.deletingTotal += 1;
      this.heap.push(time + deleteSeconds, DELETED, instance);
    } else {
      this.instances.state[instance] = REMOVED;
    }
    const list = this.live[manager];
    const position = this.instances.livePosition[instance];
    const last = list[list.length - 1];
    list[position] = last;
    this.instances.livePosition[last] = position;
    list.pop();
    this.liveTotal -= 1;
  }

  /** Slots of an instance free for a new job: capacity left, and uses left under max_use_count. */
  private slots(instance: number): number {
    if (!this.instances.isLive(instance)) return 0;
    const free = this.config.capacityPerInstance - this.instances.busy[instance];
    return this.config.maxUseCount > 0 ? min(free, this.config.maxUseCount - this.instances.uses[instance]) : free;
  }

  /** The cloud has deleted the instance: its place under max_instances is free again. */
  private onDeleted(instance: number, time: number): void {
    if (this.instances.state[instance] !== DELETING) return;
    const manager = this.instances.owner[instance];
    this.instances.state[instance] = REMOVED;
    this.deleting[manager] -= 1;
    this.deletingTotal -= 1;
    this.scaleUp(manager, time);
    this.dispatch(time);
  }

  /** Once a minute: the policy in force, idle instances past idle_time, and the wanted slots met. */
  private onTick(time: number, minute: number): void {
    this.policy = this.timeline.at(minute);
    const idleTime = this.policy === NO_POLICY ? 0 : this.config.policies[this.policy].idleTimeSeconds;
    for (let manager = 0; manager < this.config.managers; manager += 1) {
      const list = this.live[manager];
      // Removing an idle instance changes neither the jobs waiting nor the slots in use, so neither the
      // target; the reservation is counted as it stands before any removal.
      const wanted = this.wantedSlots(manager);
      for (let position = list.length - 1; position >= 0; position -= 1) {
        const instance = list[position];
        if (this.instances.state[instance] !== LIVE_READY || this.instances.busy[instance] > 0 || time - this.instances.idleSince[instance] < idleTime) continue;
        // Removed only while the idle capacity left still meets the target (gitlab-runner issue 37673).
        if (this.freeSlots[manager] - this.slots(instance) >= wanted) this.remove(instance, time);
      }
      this.scaleUp(manager, time);
    }
    this.dispatch(time);
  }

  // --- jobs ---------------------------------------------------------------------------------------

  private onReady(instance: number, time: number): void {
    if (this.instances.state[instance] !== BOOTING) return;
    this.markReady(instance, time);
    const manager = this.instances.owner[instance];
    this.startPending(manager, time);
    this.dispatch(time);
    this.scaleUp(manager, time);
  }

  private markReady(instance: number, time: number): void {
    this.instances.state[instance] = LIVE_READY;
    this.instances.idleSince[instance] = time;
    this.offer(instance);
  }

  private offer(instance: number): void {
    if (this.instances.inStack[instance] === 0 && this.slots(instance) > 0) {
      this.instances.inStack[instance] = 1;
      this.freeStack[this.instances.owner[instance]].push(instance);
    }
  }

  private onFinish(job: number, time: number): void {
    // An attempt a reclaim ended has no finish of its own.
    if (this.jobState[job] !== RUNNING || this.finishAt[job] !== time) return;
    this.jobState[job] = DONE;
    const instance = this.jobInstance[job];
    const manager = this.instances.owner[instance];
    const before = this.slots(instance);
    this.instances.busy[instance] -= 1;
    this.running[manager] -= 1;
    this.runningTotal -= 1;
    this.finished += 1;
    if (this.instances.busy[instance] === 0) {
      this.busyInstances -= 1;
      this.instances.idleSince[instance] = time;
    }
    // An instance that ran max_use_count jobs is removed once its last job ends [AUTOSCALER].
    if (this.config.maxUseCount > 0 && this.instances.uses[instance] >= this.config.maxUseCount) {
      if (this.instances.busy[instance] === 0) this.remove(instance, time);
    } else {
      this.freeSlots[manager] += this.slots(instance) - before;
      this.offer(instance);
    }
    this.startPending(manager, time);
    this.dispatch(time);
    this.scaleUp(manager, time);
  }

  private onPoll(manager: number, time: number): void {
    if (this.pollAt[manager] === time) this.pollAt[manager] = -1;
    this.dispatch(time);
  }

  /** A ready instance of the manager with a free slot, or -1. */
  private readySlot(manager: number): number {
    const stack = this.freeStack[manager];
    while (stack.length > 0) {
      const instance = stack[stack.length - 1];
      if (this.instances.state[instance] === LIVE_READY && this.slots(instance) > 0) return instance;
      stack.pop();
      this.instances.inStack[instance] = 0;
    }
    return -1;
  }

  private pendingCount(manager: number): number {
    return this.pending[manager].length - this.pendingHead[manager];
  }

  /** Jobs a manager took start on its ready slots, oldest first. */
  private startPending(manager: number, time: number): void {
    const queue = this.pending[manager];
    while (this.pendingHead[manager] < queue.length) {
      const instance = this.readySlot(manager);
      if (instance < 0) break;
      const job = queue[this.pendingHead[manager]];
      this.pendingHead[manager] += 1;
      this.pendingTotal -= 1;
      this.start(job, instance, time);
    }
    if (this.pendingHead[manager] > 1024 && this.pendingHead[manager] * 2 > queue.length) {
      queue.splice(0, this.pendingHead[manager]);
      this.pendingHead[manager] = 0;
    }
  }

  /** A spot instance reclaimed: gone at once, its jobs' attempts ended and retried. */
  private onReclaim(instance: number, time: number): void {
    if (!this.instances.isLive(instance)) return;
    this.spotInterruptions += 1;
    const manager = this.instances.owner[instance];
    const slotsBefore = this.slots(instance);
    if (this.instances.busy[instance] > 0) {
      // Rare (a rate per instance-hour): the running jobs are found by a scan rather than kept per instance.
      for (let job = 0; job < this.arrived; job += 1) {
        if (this.jobState[job] !== RUNNING || this.jobInstance[job] !== instance) continue;
        this.jobState[job] = WAITING;
        this.queuedSince[job] = time;
        this.retries.push(job);
        this.jobsInterrupted += 1;
      }
      this.running[manager] -= this.instances.busy[instance];
      this.runningTotal -= this.instances.busy[instance];
      this.busyInstances -= 1;
      this.instances.busy[instance] = 0;
      // The free slots counted for it were those beside its jobs; remove() takes away what it has now.
      this.freeSlots[manager] += this.slots(instance) - slotsBefore;
    }
    this.remove(instance);
    this.dispatch(time);
    this.scaleUp(manager, time);
  }

  private start(job: number, instance: number, time: number): void {
    const manager = this.instances.owner[instance];
    const before = this.slots(instance);
    if (this.instances.busy[instance] === 0) this.busyInstances += 1;
    this.instances.busy[instance] += 1;
    this.instances.uses[instance] += 1;
    this.freeSlots[manager] += this.slots(instance) - before;
    this.running[manager] += 1;
    this.runningTotal += 1;
    const since = this.queuedSince[job];
    this.waits[job] += time - since;
    if (this.lastBlockedOnMax >= since) this.waitedOnMaxInstances += 1;
    if (this.lastBlockedOnConcurrent >= since) this.waitedOnConcurrent += 1;
    this.jobState[job] = RUNNING;
    this.jobInstance[job] = instance;
    this.finishAt[job] = time + this.load.duration[job];
    this.heap.push(this.finishAt[job], FINISH, job);
  }

  /**
   * Hands the shard's waiting jobs, oldest first, to the managers: each takes a job at its next poll
   * [ADVANCED] when under its job ceiling and, preemptive [PREEMPTIVE], holding an unclaimed slot of a
   * ready instance; not preemptive, holding an unclaimed slot or able to create an instance for it
   * (a deleting one still counted [MAX]).
   */
  private dispatch(time: number): void {
    while (this.queueHead < this.arrived || this.retryHead < this.retries.length) {
      let chosen = -1;
      let chosenPoll = INFINITY;
      let chosenReady = false;
      let blockedOnMax = false;
      let blockedOnConcurrent = false;
      let blockedAll = true;
      for (let manager = 0; manager < this.config.managers; manager += 1) {
        const taken = this.running[manager] + this.pendingCount(manager);
        if (taken >= this.jobCeiling) {
          if (this.ceilingIsConcurrent) blockedOnConcurrent = true;
          else blockedOnMax = true;
          continue;
        }
        const unclaimed = this.freeSlots[manager] - this.pendingCount(manager);
        const canCreate = this.counted(manager) < this.config.maxInstances;
        if (unclaimed <= 0 && !canCreate) {
          blockedOnMax = true;
          continue;
        }
        blockedAll = false;
        const ready = unclaimed > 0 && this.readySlot(manager) >= 0;
        // Preemptive, a manager asks for a job only with a slot of a ready instance reserved: the
        // job's wait for an instance's boot is then queue time in GitLab (queued_duration).
        if (!ready && this.preemptive()) continue;
        const poll = this.nextPoll(manager, time);
        if (poll < chosenPoll || (poll === chosenPoll && ready && !chosenReady)) {
          chosen = manager;
          chosenPoll = poll;
          chosenReady = ready;
        }
      }
      if (chosen < 0) {
        if (blockedAll) {
          if (blockedOnMax) this.lastBlockedOnMax = time;
          if (blockedOnConcurrent) this.lastBlockedOnConcurrent = time;
        }
        return;
      }
      if (chosenPoll > time) {
        if (this.pollAt[chosen] < 0 || this.pollAt[chosen] > chosenPoll) {
          this.pollAt[chosen] = chosenPoll;
          this.heap.push(chosenPoll, POLL, chosen);
        }
        return;
      }
      // Oldest first: a retry joins the queue at its reclaim, after the jobs created before it.
      let job: number;
      if (this.retryHead < this.retries.length && (this.queueHead >= this.arrived || this.queuedSince[this.retries[this.retryHead]] < this.created[this.queueHead])) {
        job = this.retries[this.retryHead];
        this.retryHead += 1;
      } else {
        job = this.queueHead;
        this.queueHead += 1;
      }
      this.pickups[job] += time - this.queuedSince[job];
      this.pending[chosen].push(job);
      this.pendingTotal += 1;
      this.startPending(chosen, time);
      this.scaleUp(chosen, time);
    }
  }

  /** The manager's next request for jobs at or after `time`: polls every check_interval, managers spread evenly. */
  private nextPoll(manager: number, time: number): number {
    const interval = this.config.checkIntervalSeconds;
    if (interval <= 0) return time;
    const phase = ((manager + 0.5) * interval) / this.config.managers;
    const ticks = ceil((time - phase) / interval - 1e-9);
    return phase + ticks * interval;
  }

}
