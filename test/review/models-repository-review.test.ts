/**
 * The review in a models repository (models and a package-lock.json that pins runner-fleet, no toolkit
 * source): each side is synthesized by the toolkit version it pins. Where the pin is the running
 * toolkit's version, the real toolkit synthesizes (its `provision --dry-run`); where it is another,
 * `npm ci` installs it into that side's checkout, here from local tarballs of a stand-in package
 * (test/fixtures/fake-toolkit, packed with `npm pack`: no registry is reached).
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runReview } from "../../app/commands/review";
import { PROJECT_ROOT } from "../../lib/files/project-root";
import { UserInputError } from "../../lib/process/errors";
import { SYNTH_CACHE_ENV } from "../../lib/review/synth-cache";
import { createTempRepo, type TempRepo } from "./review-temp-repo";

const FAKE_TOOLKIT = join(__dirname, "..", "fixtures", "fake-toolkit");
const RUNNING_VERSION = (JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")) as { version: string }).version;

interface Packed {
  readonly version: string;
  readonly tarball: string;
  readonly integrity: string;
}

/**
 * The stand-in toolkit at each of `versions`, packed into `dir` as npm publishes a package: one `npm pack`
 * for all of them (npm packs each folder it is given; its start-up is most of a pack's time).
 */
function packFakeToolkits(dir: string, versions: readonly string[]): Packed[] {
  const sources = versions.map((version) => {
    const source = join(dir, `src-${version}`);
    cpSync(FAKE_TOOLKIT, source, { recursive: true });
    writeFileSync(join(source, "package.json"), JSON.stringify({ name: "runner-fleet", version, bin: { "runner-fleet": "bin/runner-fleet.js" } }));
    return source;
  });
  const packed = JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", dir, ...sources], { cwd: dir, encoding: "utf8" })) as { version: string; filename: string; integrity: string }[];
  expect(packed.map((entry) => entry.version)).toEqual(versions);
  return packed.map((entry) => ({ version: entry.version, tarball: join(dir, entry.filename), integrity: entry.integrity }));
}

/** package.json and package-lock.json of a models repository pinning runner-fleet (resolved from a tarball, or nowhere when only read). */
function pinFiles(pin: { version: string; tarball?: string; integrity?: string }): Record<string, string> {
  const spec = pin.tarball ? `file:${pin.tarball}` : pin.version;
  const entry = pin.tarball ? { version: pin.version, resolved: `file:${pin.tarball}`, integrity: pin.integrity, bin: { "runner-fleet": "bin/runner-fleet.js" } } : { version: pin.version };
  return {
    "package.json": `${JSON.stringify({ name: "team-runner-models", private: true, dependencies: { "runner-fleet": spec } }, null, 2)}\n`,
    "package-lock.json": `${JSON.stringify({ name: "team-runner-models", lockfileVersion: 3, requires: true, packages: { "": { name: "team-runner-models", dependencies: { "runner-fleet": spec } }, "node_modules/runner-fleet": entry } }, null, 2)}\n`,
  };
}

/** The runner-fleet versions installed in the run's synth cache (test/global-setup.js), one per install. */
function installsInSynthCache(): string[] {
  const cache = process.env[SYNTH_CACHE_ENV]!;
  return readdirSync(cache)
    .filter((name) => name.startsWith("toolkit-") && !name.includes("."))
    .map((name) => (JSON.parse(readFileSync(join(cache, name, "node_modules", "runner-fleet", "package.json"), "utf8")) as { version: string }).version);
}

describe("a models repository whose pin moves (stand-in toolkits 0.0.9 and 0.0.10)", () => {
  let packages: string;
  let repo: TempRepo;
  let base: string;
  let older: Packed;
  let newer: Packed;

  beforeAll(() => {
    packages = mkdtempSync(join(tmpdir(), "fake-toolkits-"));
    [older, newer] = packFakeToolkits(packages, ["0.0.9", "0.0.10"]);
  });
  afterAll(() => rmSync(packages, { recursive: true, force: true }));

  beforeEach(() => {
    repo = createTempRepo({ ...pinFiles(older), "models/cell-1.yaml": "machine_type: e2-small\n", "models/cell-2.yaml": "machine_type: e2-small\n" });
    base = repo.git("rev-parse", "HEAD").trim();
  });
  afterEach(() => repo.cleanup());

  it("synthesizes each side with the version it pins, so the review shows what the upgrade changes in every stack", async () => {
    for (const [path, text] of Object.entries(pinFiles(newer))) repo.write(path, text);
    repo.write("models/cell-2.yaml", "machine_type: e2-standard-4\n");
    const head = repo.commit("runner-fleet 0.0.10, bigger managers for cell-2");

    const { report, markdown } = await runReview({ cwd: repo.dir, base, head });

    expect(report.toolkitUpgrade).toMatchObject({ from: "0.0.9", to: "0.0.10", direction: "upgrade" });
    expect(report.diff.summary.changed).toEqual(["cell-1", "cell-2"]);
    const attributes = (cell: string) => report.diff.cells.find((entry) => entry.cell === cell)?.resources.flatMap((resource) => resource.attributes);
    expect(attributes("cell-1")).toEqual([{ path: "labels.toolkit", kind: "changed", before: '"0.0.9"', after: '"0.0.10"' }]);
    expect(attributes("cell-2")).toEqual(
      expect.arrayContaining([
        { path: "machine_type", kind: "changed", before: '"e2-small"', after: '"e2-standard-4"' },
        { path: "labels.toolkit", kind: "changed", before: '"0.0.9"', after: '"0.0.10"' },
      ]),
    );
    expect(markdown.indexOf("#### Toolkit upgrade: runner-fleet 0.0.9 → 0.0.10")).toBeLessThan(markdown.indexOf("#### `cell-1`"));
  });

  it("an invalid model on one side is the user's error (exit 2), naming the toolkit that refused it", async () => {
    repo.write("models/cell-1.yaml", "invalid: true\n");
    const head = repo.commit("broken model");
    // One review (each installs the toolkit the failing side pins), both checks on its failure.
    const failure: unknown = await runReview({ cwd: repo.dir, base, head }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(UserInputError);
    expect((failure as Error).message).toMatch(/with runner-fleet 0\.0\.9 failed: exit 2\n.*cell-1\.yaml:1:1: invalid model/);
    // Both sides pin 0.0.9, as the base of the review before did: one install in the run's synth cache served them all.
    expect(installsInSynthCache().filter((version) => version === "0.0.9")).toEqual(["0.0.9"]);
  });

  it("the working tree with another version installed than it pins: says to run npm ci, never synthesizes with the wrong toolkit", async () => {
    // The repository's node_modules (a link to this checkout's) has no runner-fleet 0.0.10.
    for (const [path, text] of Object.entries(pinFiles(newer))) repo.write(path, text);
    await expect(runReview({ cwd: repo.dir, base })).rejects.toThrow(/pins runner-fleet 0\.0\.10, but no version is installed in .*; run `npm ci`/);
  });
});

describe("a models repository whose pin is the running toolkit's version", () => {
  let repo: TempRepo;

  afterEach(() => repo.cleanup());

  it("is synthesized by the running toolkit itself (its provision --dry-run), no install", async () => {
    const cell1 = readFileSync(join(PROJECT_ROOT, "models", "cell-1.yaml"), "utf8");
    repo = createTempRepo({ ...pinFiles({ version: RUNNING_VERSION }), "models/cell-1.yaml": cell1, "models/schema.json": readFileSync(join(PROJECT_ROOT, "models", "schema.json"), "utf8") });
    const base = repo.git("rev-parse", "HEAD").trim();
    repo.write("models/cell-1.yaml", cell1.replace("    cost-center: ci\n", "    cost-center: ci\n    reviewed: \"yes\"\n"));
    expect(repo.read("models/cell-1.yaml")).not.toBe(cell1);
    const head = repo.commit("label");

    const { report } = await runReview({ cwd: repo.dir, base, head });

    expect(report.toolkitUpgrade).toBeUndefined();
    expect(report.diff.summary.changed).toEqual(["cell-1"]);
    const changed = report.diff.cells[0]?.resources.flatMap((resource) => resource.attributes.map((attribute) => attribute.path)) ?? [];
    expect(changed.some((path) => /labels\.reviewed|tags\.reviewed/.test(path))).toBe(true);
  }, 60_000);
});
