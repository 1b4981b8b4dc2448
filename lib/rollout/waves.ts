/**
 * The waves of one change: which of the changed cells go first, by the rollout policy's waves in
 * order. A cell is placed once, by the first wave that selects it; cells no wave takes go in a last
 * wave of their own ("rest"). Waves left empty by the change are dropped.
 */
import type { RolloutPolicy, WavePolicy } from "./policy-schema";

export interface RolloutCell {
  readonly cell: string;
  /** cell.labels of the model at the change's head. */
  readonly labels: Readonly<Record<string, string>>;
}

export interface PlannedWave {
  readonly name: string;
  readonly cells: readonly string[];
  /** A cell of this wave is in manual_promotion: its gate only passes when a person promotes. */
  readonly manual: boolean;
}

/** Waves for a change to `cells`; none when fewer than two cells change (one cell applies as it always did). */
export function planWaves(cells: readonly RolloutCell[], policy: RolloutPolicy): PlannedWave[] {
  const ordered = [...new Map(cells.map((cell) => [cell.cell, cell])).values()].sort((a, b) => a.cell.localeCompare(b.cell));
  if (ordered.length < 2) return [];
  const placed = new Set<string>();
  const waves: PlannedWave[] = [];
  const manual = new Set(policy.manual_promotion);
  const add = (name: string, chosen: readonly RolloutCell[]) => {
    if (chosen.length === 0) return;
    for (const cell of chosen) placed.add(cell.cell);
    waves.push({ name, cells: chosen.map((cell) => cell.cell), manual: chosen.some((cell) => manual.has(cell.cell)) });
  };
  for (const wave of policy.waves) add(wave.name, select(wave, ordered.filter((cell) => !placed.has(cell.cell)), ordered.length));
  const rest = ordered.filter((cell) => !placed.has(cell.cell));
  if (rest.length > 0) add(waves.some((wave) => wave.name === "rest") ? "remaining" : "rest", rest);
  return waves;
}

function select(wave: WavePolicy, open: readonly RolloutCell[], total: number): RolloutCell[] {
  if (wave.cells) return open.filter((cell) => wave.cells?.includes(cell.cell));
  if (wave.count !== undefined) return open.slice(0, wave.count);
  if (wave.share !== undefined) return open.slice(0, Math.max(1, Math.ceil((total * wave.share) / 100)));
  if (wave.labels) {
    const wanted = Object.entries(wave.labels);
    return open.filter((cell) => wanted.every(([key, value]) => cell.labels[key] === value));
  }
  return [...open];
}
