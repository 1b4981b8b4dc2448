/**
 * The simulation's future events: a binary min-heap on typed arrays, ordered by time and then by
 * the order events were added, so two events at the same moment run in a fixed order (a
 * simulation repeats exactly). Each event carries a kind and one integer (an instance or manager).
 */
// A module constant: a global (Infinity) read in a vm context, as under jest, goes through the context's interceptor.
const INFINITY = Number.POSITIVE_INFINITY;

export class EventHeap {
  private times = new Float64Array(1024);
  private sequence = new Float64Array(1024);
  private kinds = new Uint8Array(1024);
  private subjects = new Int32Array(1024);
  private next = 0;
  size = 0;

  push(time: number, kind: number, subject: number): void {
    if (this.size === this.times.length) this.grow();
    let at = this.size;
    this.size += 1;
    const order = this.next;
    this.next += 1;
    // Sift up: parents later than the new event move down.
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (this.times[parent] < time || (this.times[parent] === time && this.sequence[parent] < order)) break;
      this.place(at, parent);
      at = parent;
    }
    this.times[at] = time;
    this.sequence[at] = order;
    this.kinds[at] = kind;
    this.subjects[at] = subject;
  }

  /** Time of the earliest event; Infinity when there is none. */
  peekTime(): number {
    return this.size === 0 ? INFINITY : this.times[0];
  }

  peekKind(): number {
    return this.kinds[0];
  }

  peekSubject(): number {
    return this.subjects[0];
  }

  /** Removes the earliest event (read it with peek* first). */
  pop(): void {
    this.size -= 1;
    if (this.size === 0) return;
    const last = this.size;
    const time = this.times[last];
    const order = this.sequence[last];
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= this.size) break;
      const right = left + 1;
      let child = left;
      if (right < this.size && (this.times[right] < this.times[left] || (this.times[right] === this.times[left] && this.sequence[right] < this.sequence[left]))) child = right;
      if (time < this.times[child] || (time === this.times[child] && order < this.sequence[child])) break;
      this.place(at, child);
      at = child;
    }
    this.times[at] = time;
    this.sequence[at] = order;
    this.kinds[at] = this.kinds[last];
    this.subjects[at] = this.subjects[last];
  }

  private place(to: number, from: number): void {
    this.times[to] = this.times[from];
    this.sequence[to] = this.sequence[from];
    this.kinds[to] = this.kinds[from];
    this.subjects[to] = this.subjects[from];
  }

  private grow(): void {
    const size = this.times.length * 2;
    const grown = <T extends Float64Array | Uint8Array | Int32Array>(array: T, make: new (n: number) => T): T => {
      const copy = new make(size);
      copy.set(array);
      return copy;
    };
    this.times = grown(this.times, Float64Array);
    this.sequence = grown(this.sequence, Float64Array);
    this.kinds = grown(this.kinds, Uint8Array);
    this.subjects = grown(this.subjects, Int32Array);
  }
}
