/**
 * A review a person can read, over a real two-commit change with the real synth: the
 * text diff of the rendered config.toml, what the change does to the managers in words (a
 * `concurrent` change reaches them live: no template, no roll), construct paths instead of
 * hash-suffixed logical ids.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runBin } from "../support/cli";
import { createRepoFromCheckout, type TempRepo } from "./review-temp-repo";
import { seedCompiledCode } from "./seed-compiled-code";

describe("bin/review over a commit that changes `concurrent` (real synth, both clouds)", () => {
  let repo: TempRepo;
  let text: string;
  let markdown: string;

  beforeAll(async () => {
    // GIVEN a copy of this repository, and a commit raising `concurrent` of cell-1's small-amd64 (Google Cloud)
    // and of cell-2's spot-amd64 (AWS) by one (its code compiled as this checkout's dist/, when that is
    // fresh: ./seed-compiled-code.ts)
    repo = createRepoFromCheckout();
    await seedCompiledCode(repo);
    const cell1 = repo.read("models/cell-1.yaml");
    const cell2 = repo.read("models/cell-2.yaml");
    expect(cell1.match(/concurrent: 60\n/g)).toHaveLength(1);
    expect(cell2.match(/concurrent: 50\n/g)).toHaveLength(1);
    repo.write("models/cell-1.yaml", cell1.replace("concurrent: 60\n", "concurrent: 61\n"));
    repo.write("models/cell-2.yaml", cell2.replace("concurrent: 50\n", "concurrent: 51\n"));
    repo.commit("more concurrent jobs per manager");

    // WHEN the review compares the two commits, as a merge request pipeline runs it
    const result = runBin("review", ["--base", "HEAD~1", "--head", "HEAD", "--markdown", "review.md"], { cwd: repo.dir });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    text = result.stdout;
    markdown = readFileSync(join(repo.dir, "review.md"), "utf8");
  }, 300_000);
  afterAll(() => repo.cleanup());

  it("shows the text diff of each manager's config.toml, once for the managers that share it", () => {
    const small = "  files the VMs boot with:\n    small-amd64/manager-0/config.toml, small-amd64/manager-1/config.toml:\n";
    expect(text).toContain(small);
    const hunk = text.slice(text.indexOf(small) + small.length).split("\n").filter((line) => line.startsWith("      "));
    expect(hunk).toContain("      -concurrent = 60");
    expect(hunk).toContain("      +concurrent = 61");
    expect(text).toContain("spot-amd64/manager-0/config.toml, spot-amd64/manager-1/config.toml:");
    expect(text).toContain("      +concurrent = 51");
    // Only what changed: the other shard's files are untouched.
    expect(text).not.toContain("large-amd64/manager-0/config.toml");
    expect(markdown).toMatch(/```diff\n@@ [^\n]+\n(?:[ +-][^\n]*\n)*-concurrent = 60\n\+concurrent = 61\n/);
  });

  it("shows no startup script: config.toml is not in the templates any more (lib/render/live-config.ts)", () => {
    expect(text).not.toContain("startup.sh");
    expect(text).not.toContain("worker-startup.sh");
    expect(markdown).toContain("**Files the VMs boot with**");
  });

  it("says the change is applied live to every manager of the shard, on both clouds, and names no roll", () => {
    expect(text).toContain(
      "  NOTE: has config.toml applied live to 2 of 2 managers of shard small-amd64 (no restart, no new VM): config.toml changed (concurrent, runners.request_concurrency): gitlab-runner reloads these within seconds",
    );
    expect(text).toContain("  NOTE: has config.toml applied live to 2 of 2 managers of shard spot-amd64 (no restart, no new VM)");
    expect(text).not.toMatch(/WARNING: replaces/);
    expect(text).not.toContain("provision rolls");
    expect(text).not.toMatch(/managers of shard large-amd64/);
    expect(markdown).toContain("> :information_source: **This change has config.toml applied live to 2 of 2 managers of shard small-amd64 (no restart, no new VM)**");
  });

  it("names resources by construct path, not by logical id with a hash suffix", () => {
    expect(text).toContain("~ fleet/shard-small-amd64/live-config/Config0 (google_secret_manager_secret_version)");
    expect(text).toContain("~ fleet/shard-spot-amd64/live-config/Config0 (aws_ssm_parameter)");
    expect(text).not.toContain("(google_compute_instance_template)");
    expect(text).not.toContain("(aws_launch_template)");
    expect(markdown).toContain("`fleet/shard-spot-amd64/live-config/Config1` <sub>aws_ssm_parameter</sub>");
    const entries = text.split("\n").filter((line) => /^  [~+-] /.test(line));
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.filter((line) => /_[0-9A-F]{8}\b/.test(line))).toEqual([]);
  });

  it("holds no runner token", () => {
    for (const output of [text, markdown]) expect(output).not.toMatch(/glrt-[A-Za-z0-9_-]{8,}/);
  });
});
