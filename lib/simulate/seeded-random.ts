/**
 * A small seeded generator (mulberry32, public domain, Tommy Ettinger): the synthetic week and any
 * randomness of a simulation repeat exactly for a seed, on every machine. Not for anything secret.
 */

// Module constants, not reads of the global Math: under jest (a vm context) each such read goes through
// the context's interceptor, several times slower in these loops (as in ./simulate-fleet.ts).
const { PI, cos, exp, imul, log, max, round, sqrt } = Math;

export type Random = () => number;

/** Uniform numbers in [0, 1) from a 32-bit seed. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = imul(t ^ (t >>> 15), t | 1);
    t ^= t + imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A Poisson count with mean `mean`: Knuth's product method for small means, a rounded normal above 30. */
export function poisson(random: Random, mean: number): number {
  if (mean <= 0) return 0;
  if (mean > 30) return max(0, round(mean + sqrt(mean) * standardNormal(random)));
  const limit = exp(-mean);
  let count = 0;
  let product = random();
  while (product > limit) {
    count += 1;
    product *= random();
  }
  return count;
}

/** Box-Muller. */
export function standardNormal(random: Random): number {
  const u = 1 - random();
  return sqrt(-2 * log(u)) * cos(2 * PI * random());
}
