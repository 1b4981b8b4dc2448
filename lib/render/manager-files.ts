/**
 * What each runner manager VM and each worker boots with.
 *
 * CONTRACT (used by constructs/google and constructs/aws; keep the signatures):
 * - renderConfigToml(model, shard, slot): config.toml of manager `slot`, token as a placeholder.
 * - renderManagerStartupScript(model, shard, slot): bash user-data/startup-script of manager `slot`;
 *   installs the pinned gitlab-runner and the fleeting plugin, reads the shard's token from the
 *   secret store at boot, writes /etc/gitlab-runner/config.toml (0600) and starts the service.
 * - renderWorkerStartupScript(model, shard): bash user-data/startup-script of the shard's workers.
 * None of them ever contains a token.
 *
 * TEMPORARY: placeholder bodies until the renderers land (templates/config.toml.hbs, templates/startup/).
 */
import type { RunnerModel, Shard } from "../model/schema";

export function renderConfigToml(model: RunnerModel, shard: Shard, slot: number): string {
  return `# config.toml of ${model.cell.id}/${shard.name} manager ${slot} (renderer pending)\n`;
}

export function renderManagerStartupScript(model: RunnerModel, shard: Shard, slot: number): string {
  return `#!/usr/bin/env bash\n# startup of ${model.cell.id}/${shard.name} manager ${slot} (renderer pending)\nset -euo pipefail\n`;
}

export function renderWorkerStartupScript(model: RunnerModel, shard: Shard): string {
  return `#!/usr/bin/env bash\n# startup of ${model.cell.id}/${shard.name} workers (renderer pending)\nset -euo pipefail\n`;
}
