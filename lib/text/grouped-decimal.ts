/**
 * A number as en-US writes it with a fixed count of decimals ("1,234.50"): the text of
 * `new Intl.NumberFormat("en-US", { minimumFractionDigits: n, maximumFractionDigits: n }).format(value)`,
 * worked out here instead. The first Intl formatter of a process loads ICU's locale data (about 100
 * million instructions), and a dry run would build one only for the amounts of its cost estimate.
 *
 * Same rules as ICU: the number's shortest round-trip decimal digits (what String(value) writes,
 * and what ICU starts from too), rounded half away from zero, grouped in threes, "-" before any
 * negative number (-0 too). Not finite numbers are left to Intl.
 */
export function formatGroupedDecimal(value: number, fractionDigits: number): string {
  if (!Number.isFinite(value)) return new Intl.NumberFormat("en-US", { minimumFractionDigits: fractionDigits, maximumFractionDigits: fractionDigits }).format(value);
  const negative = value < 0 || Object.is(value, -0);
  const { digits, pointAt } = decimalDigits(Math.abs(value));
  const rounded = roundHalfUp(digits, pointAt + fractionDigits);
  // `rounded` holds the number times 10^fractionDigits: split off the decimals, pad both sides.
  const padded = rounded.padStart(fractionDigits + 1, "0");
  const whole = padded.slice(0, padded.length - fractionDigits);
  const decimals = padded.slice(padded.length - fractionDigits);
  return `${negative ? "-" : ""}${groupThousands(whole)}${fractionDigits > 0 ? `.${decimals}` : ""}`;
}

/** The shortest decimal digits of a finite, non-negative number and where its point goes (digits "125", pointAt 1: 1.25). */
function decimalDigits(value: number): { digits: string; pointAt: number } {
  // String() writes 1e21 and above, and below 1e-6, with an exponent: "1.25e+21", "5e-7".
  const [mantissa, exponent = "0"] = String(value).split("e");
  const [whole, fraction = ""] = mantissa.split(".");
  return { digits: whole + fraction, pointAt: whole.length + Number(exponent) };
}

/**
 * The first `keep` digits of `digits` (a count that may be below zero or beyond its length), rounded
 * half up on what follows, as a string of digits without leading zeros ("0" when nothing is left).
 */
function roundHalfUp(digits: string, keep: number): string {
  if (keep < 0) return "0";
  const kept = keep >= digits.length ? digits + "0".repeat(keep - digits.length) : digits.slice(0, keep);
  const roundsUp = keep < digits.length && digits.charCodeAt(keep) >= 0x35; /* "5" */
  const result = roundsUp ? incremented(kept) : kept;
  return result.replace(/^0+(?=\d)/, "") || "0";
}

/** A string of decimal digits plus one ("" + 1 is "1", "199" + 1 is "200"). */
function incremented(digits: string): string {
  let index = digits.length - 1;
  while (index >= 0 && digits[index] === "9") index -= 1;
  if (index < 0) return `1${"0".repeat(digits.length)}`;
  return digits.slice(0, index) + String(Number(digits[index]) + 1) + "0".repeat(digits.length - index - 1);
}

function groupThousands(whole: string): string {
  return whole.replace(/\B(?=(\d{3})+$)/g, ",");
}
