/** The README's short model is one `prepare` accepts as written: a newcomer who copies it gets no error. */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT, runInProcess } from "../support/cli";

test("the README's model passes prepare with no warning", async () => {
  const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("\n## A model, in short\n"));
  const model = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
  expect(model).toContain("cell: { id: cell-1");
  const models = join(mkdtempSync(join(tmpdir(), "readme-model-")), "models");
  mkdirSync(models);
  writeFileSync(join(models, "cell-1.yaml"), model as string);
  const result = await runInProcess("prepare", ["--models-dir", models, "--json"]);
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
  const [report] = JSON.parse(result.stdout).models as { warnings: unknown[]; resolved: { shards: { name: string }[] } }[];
  expect(report.warnings).toEqual([]);
  expect(report.resolved.shards.map((shard) => shard.name)).toEqual(["small-amd64"]);
});
