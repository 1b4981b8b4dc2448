/**
 * formatGroupedDecimal writes what Intl.NumberFormat("en-US") writes with a fixed count of decimals,
 * without ICU: checked against Intl itself on the amounts that decide rounding and grouping, and on
 * many numbers of every size.
 */
import { seededRandom } from "../../lib/simulate/seeded-random";
import { formatGroupedDecimal } from "../../lib/text/grouped-decimal";

const formatters = new Map<number, Intl.NumberFormat>();
const intl = (value: number, fractionDigits: number) => {
  let formatter = formatters.get(fractionDigits);
  if (!formatter) formatters.set(fractionDigits, (formatter = new Intl.NumberFormat("en-US", { minimumFractionDigits: fractionDigits, maximumFractionDigits: fractionDigits })));
  return formatter.format(value);
};

/** A fixed sequence of numbers in [0, 1) for a seed (mulberry32), so every run checks the same ones. */
const numbers = seededRandom;

test("writes amounts as en-US does: grouped in threes, two decimals", () => {
  expect(formatGroupedDecimal(1234567.891, 2)).toBe("1,234,567.89");
  expect(formatGroupedDecimal(107.68, 2)).toBe("107.68");
  expect(formatGroupedDecimal(0, 2)).toBe("0.00");
  expect(formatGroupedDecimal(999.995, 2)).toBe("1,000.00");
});

test.each([0, 1, 2, 3])("rounds half away from zero on the shortest decimal digits, as Intl does (%i decimals)", (fractionDigits) => {
  const ties = [0.5, 1.5, 2.5, 0.05, 0.15, 0.125, 0.375, 1.005, 2.675, 1.0049999999999999, 8.345, 1234.565, 0.0005, 0.0015, 99.995, 999.9995, 9.5];
  const edges = [0, -0, 1, -1, 0.001, -0.001, -0.004, -0.005, 5e-7, 1e-7, 123456789012345680000, 1e21, 1.25e21, -1.25e21, 9.999e25, Number.MAX_SAFE_INTEGER, Number.MIN_VALUE, Number.MAX_VALUE, 0.1 + 0.2];
  for (const value of [...ties, ...ties.map((tie) => -tie), ...edges]) {
    expect({ value, text: formatGroupedDecimal(value, fractionDigits) }).toEqual({ value, text: intl(value, fractionDigits) });
  }
});

test("agrees with Intl on numbers of every size, from cents to beyond 2^53", () => {
  const next = numbers(17);
  const differing: { value: number; fractionDigits: number; text: string }[] = [];
  for (let index = 0; index < 20_000; index += 1) {
    const magnitude = 10 ** Math.floor(next() * 24 - 6);
    const value = (next() < 0.1 ? -1 : 1) * (index % 3 === 0 ? Math.round(next() * 1e6) / 1000 : next() * magnitude);
    const fractionDigits = index % 4;
    const text = formatGroupedDecimal(value, fractionDigits);
    if (text !== intl(value, fractionDigits)) differing.push({ value, fractionDigits, text });
  }
  expect(differing).toEqual([]);
});

test("leaves numbers that are not finite to Intl", () => {
  for (const value of [Number.NaN, Infinity, -Infinity]) expect(formatGroupedDecimal(value, 2)).toBe(intl(value, 2));
});
