/**
 * The worker instances of a simulated shard, column by column in typed arrays (a week with
 * max_use_count 1 creates one instance per job): their state, manager, jobs running and run, and
 * since when they are idle. Ids are never reused; the arrays double as they fill.
 */
export const BOOTING = 1;
export const LIVE_READY = 2;
export const REMOVED = 3;
/** Removed by taskscaler, not yet deleted by the cloud: no slots, but counted toward max_instances and billed. */
export const DELETING = 4;

export class InstanceTable {
  count = 0;
  state = new Uint8Array(256);
  /** The manager whose worker group it belongs to. */
  owner = new Int32Array(256);
  /** Jobs running on it now. */
  busy = new Int32Array(256);
  /** Jobs it has started (max_use_count counts these). */
  uses = new Int32Array(256);
  idleSince = new Float64Array(256);
  /** Its place in its manager's list of live instances. */
  livePosition = new Int32Array(256);
  /** 1 while it is on its manager's stack of instances that may have a free slot. */
  inStack = new Uint8Array(256);

  /** A new booting instance of `manager`; its id. */
  add(manager: number): number {
    if (this.count === this.state.length) this.grow();
    const instance = this.count;
    this.count += 1;
    this.state[instance] = BOOTING;
    this.owner[instance] = manager;
    return instance;
  }

  isLive(instance: number): boolean {
    const state = this.state[instance];
    return state === BOOTING || state === LIVE_READY;
  }

  private grow(): void {
    const size = this.state.length * 2;
    const grow = <T extends Uint8Array | Int32Array | Float64Array>(array: T, make: new (n: number) => T): T => {
      const copy = new make(size);
      copy.set(array);
      return copy;
    };
    this.state = grow(this.state, Uint8Array);
    this.owner = grow(this.owner, Int32Array);
    this.busy = grow(this.busy, Int32Array);
    this.uses = grow(this.uses, Int32Array);
    this.idleSince = grow(this.idleSince, Float64Array);
    this.livePosition = grow(this.livePosition, Int32Array);
    this.inStack = grow(this.inStack, Uint8Array);
  }
}
