/** The simulate report's words for one job and for none (issue 37: "1 jobs", "p95 0.0 s" for a shard no job went to). */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runInProcess } from "../support/cli";

it("says 1 job, and no wait at all for a shard that took no job", async () => {
  const dir = mkdtempSync(join(tmpdir(), "report-wording-"));
  try {
    const trace = join(dir, "one.csv");
    // One job only the large shard takes: the small one (run_untagged, other tags) gets none.
    writeFileSync(trace, "created_at,duration,tags\n2024-01-08T09:00:00Z,60,saas-linux-large-amd64\n");
    const result = await runInProcess("simulate", ["--model", "cell-1", "--trace", trace, "--no-advice"]);
    expect(result.status).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines[0]).toMatch(/^cell-1: 1 job from 2024-01-08T09:00Z/);
    expect(lines.slice(2, 4)).toEqual(["  small-amd64  0 jobs", "    wait            none: no job of the trace went to this shard"]);
    expect(result.stdout).not.toMatch(/small-amd64[^]*p95 0\.0 s[^]*large-amd64/);
    expect(result.stdout).toContain("  large-amd64  1 job\n    wait to start   mean ");
    expect(result.stdout).toContain("UTC: p95 0.8 s over 1 job\n");
    expect(result.stdout).toContain("    waited on       max_instances: 0 jobs, concurrent: 0 jobs\n");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
