/**
 * What each runner manager VM and each worker boots with.
 *
 * CONTRACT (used by constructs/google and constructs/aws; keep the signatures):
 * - renderConfigToml(model, shard, slot): config.toml of manager `slot`, with the token as the
 *   placeholder RUNNER_TOKEN_PLACEHOLDER ("__RUNNER_TOKEN__").
 * - renderManagerStartupScript(model, shard, slot): bash user-data/startup-script of manager `slot`;
 *   installs the pinned gitlab-runner and the fleeting plugin, reads the shard's token from the
 *   secret store at boot, writes /etc/gitlab-runner/config.toml (0600) and starts the service.
 * - renderWorkerStartupScript(model, shard): bash user-data/startup-script of the shard's workers.
 * None of them ever contains a token.
 *
 * Implementations: config-toml.ts (templates/config.toml.hbs) and startup-script.ts (the plain
 * scripts under scripts/, settings and units as data, in one payload: templates/startup/payload.sh.hbs).
 */
export { renderConfigToml, RUNNER_TOKEN_PLACEHOLDER, WORKER_READY_FILE } from "./config-toml";
export { renderManagerStartupScript, renderWorkerStartupScript, LOCAL_TOKEN_FILE, RUNNER_LOG_FILE } from "./startup-script";
