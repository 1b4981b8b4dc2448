/**
 * compareLikeLocale orders strings as String.prototype.localeCompare does, without ICU for printable
 * ASCII under an English default locale: checked against localeCompare itself on every pair of
 * characters, on many strings that share prefixes or differ only in case, and where it must leave the
 * order to localeCompare (other text, another default locale).
 */
import { seededRandom } from "../../lib/simulate/seeded-random";
import { spawnSync } from "node:child_process";
import { compareLikeLocale } from "../../lib/text/locale-order";
import { REPO_ROOT } from "../support/cli";

const PRINTABLE = Array.from({ length: 95 }, (_, index) => String.fromCharCode(0x20 + index));

/** A fixed sequence of numbers in [0, 1) for a seed (mulberry32), so every run checks the same ones. */
const numbers = seededRandom;

/** The pairs compareLikeLocale orders otherwise than localeCompare. */
const misordered = (pairs: Iterable<readonly [string, string]>) =>
  [...pairs].filter(([a, b]) => compareLikeLocale(a, b) !== Math.sign(a.localeCompare(b))).map(([a, b]) => ({ a, b, order: compareLikeLocale(a, b) }));

function* allPairs(texts: readonly string[]): Generator<readonly [string, string]> {
  for (const a of texts) for (const b of texts) yield [a, b];
}

test("orders every pair of printable ASCII characters as localeCompare does", () => {
  expect(misordered(allPairs(PRINTABLE))).toEqual([]);
});

test("orders strings that share prefixes, differ in case or in length as localeCompare does", () => {
  const next = numbers(7);
  // Few characters, so that prefixes and case-only differences come often; then any printable ASCII.
  const alphabets = ["aAbB_-1.", PRINTABLE.join("")];
  const pairs = Array.from({ length: 30_000 }, (_, index) => {
    const alphabet = alphabets[index % 2];
    const text = () => Array.from({ length: Math.floor(next() * 7) }, () => alphabet[Math.floor(next() * alphabet.length)]).join("");
    const a = text();
    return [a, next() < 0.3 ? a.toUpperCase() : text()] as const;
  });
  expect(misordered(pairs)).toEqual([]);
});

test("orders Terraform addresses and shard names as localeCompare does", () => {
  const addresses = [
    "google_compute_instance_template.fleet_shard-small-amd64_manager-template-0_5A1B2C3D",
    "google_compute_instance_template.fleet_shard-small-amd64_manager-template-1_0F9E8D7C",
    "google_compute_instance_template.fleet_shard-large-amd64_worker-template_ABCDEF12",
    "google_compute_instance_group_manager.fleet_shard-small-amd64_managers_1234ABCD",
    "google_project_iam_member.fleet_shard-small-amd64_manager-role-logging_9F8E7D6C",
    "aws_launch_template.fleet_shard_arm64-graviton_workers_DEADBEEF",
    "small-amd64",
    "large-amd64",
    "small-arm64",
  ];
  expect(misordered(allPairs(addresses))).toEqual([]);
});

test("leaves text beyond printable ASCII to localeCompare", () => {
  const pairs = [["é", "f"], ["ß", "ss"], ["a\tb", "a b"], ["Zürich", "Zurich"], ["\u0000", ""]] as const;
  expect(misordered([...pairs, ...pairs.map(([a, b]) => [b, a] as const)])).toEqual([]);
});

test("leaves the order to localeCompare under a default locale that may not be English (Danish sorts aa after z)", () => {
  const script = `const { compareLikeLocale } = require("./dist/lib/text/locale-order.js"); console.log(JSON.stringify([compareLikeLocale("aa", "z"), Math.sign("aa".localeCompare("z"))]));`;
  const result = spawnSync(process.execPath, ["-e", script], { cwd: REPO_ROOT, encoding: "utf8", env: { PATH: process.env.PATH, LANG: "da_DK.UTF-8" } });
  expect(JSON.parse(result.stdout)).toEqual([1, 1]);
});
