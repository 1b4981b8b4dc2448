/**
 * The `.gitlab-ci.yml` that `runner-fleet init` writes includes the component with inputs. GitLab
 * refuses an include whose inputs the component's `spec:inputs` does not declare, or whose values fail
 * its `options`/`regex` (lib/ci/gitlab-ci/inputs.ts). So the scaffold is resolved here against this
 * tree's component, the one its version ships: a renamed input or a tightened rule breaks this test,
 * not a team's first pipeline.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { runInit } from "../../app/commands/init";
import { toolkitVersion } from "../../lib/files/toolkit-version";
import { REPO_ROOT } from "../support/cli";
import { resolvePipelineText } from "../../lib/ci/gitlab-ci/include";

type Include = { component?: string; local?: string; inputs?: Record<string, unknown> };

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "init-component-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** The scaffold's include, pointed at this tree's component instead of the catalog's copy. */
function asLocalInclude(pipelineText: string, inputs?: Record<string, unknown>): string {
  const pipeline = parse(pipelineText) as { include: Include[] };
  const [include] = pipeline.include;
  expect(include.component).toMatch(new RegExp(`/runner-fleet@${toolkitVersion().replace(/\./g, "\\.")}$`));
  return stringify({ ...pipeline, include: [{ local: "templates/runner-fleet.yml", inputs: inputs ?? include.inputs }] });
}

test.each(["google", "aws"] as const)("%s: the scaffold's inputs are ones the component declares, with values it accepts", (cloud) => {
  const dir = join(root, cloud);
  runInit({ dir, cloud, lockfile: false });
  const text = asLocalInclude(readFileSync(join(dir, ".gitlab-ci.yml"), "utf8"));
  const resolved = resolvePipelineText(REPO_ROOT, text) as Record<string, unknown> & { variables: Record<string, unknown> };
  const jobs = Object.values(resolved) as Array<{ before_script?: unknown; script?: unknown }>;
  const lines = jobs.flatMap((job) => [job?.before_script, job?.script]).flatMap((list) => (Array.isArray(list) ? list.map(String) : []));
  // The jobs check that the installed toolkit is the pinned version, and read the scaffold's models directory.
  expect(lines).toContain(`sh "node_modules/runner-fleet/ci/check-toolkit-version.sh" "${toolkitVersion()}"`);
  expect(resolved.variables.RUNNER_MODELS_DIR).toBe("models");
});

test("the check has teeth: an input the component does not declare is refused", () => {
  const dir = join(root, "x");
  runInit({ dir, lockfile: false });
  const text = asLocalInclude(readFileSync(join(dir, ".gitlab-ci.yml"), "utf8"), { toolkit_version: toolkitVersion(), model_dir: "models" });
  expect(() => resolvePipelineText(REPO_ROOT, text)).toThrow(/model_dir/);
});
