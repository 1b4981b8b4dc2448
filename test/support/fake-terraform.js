#!/usr/bin/env node
/*
 * A stand-in for the terraform/tofu CLI, for tests of the engine driver
 * (providers cannot be downloaded here, so the real engine cannot plan).
 *
 * Subcommands: version [-json], init, plan, show -json FILE, apply [FILE], destroy.
 * Environment:
 *   FAKE_TF_LOG        append one JSON line per call: {argv, cwd, env: {TF_IN_AUTOMATION, TF_HTTP_USERNAME, TF_HTTP_PASSWORD}, envNames}
 *                      (envNames: the name of every variable the engine received)
 *   FAKE_TF_PLAN_JSON  plan fixture printed by `show -json` (default: fixtures/plan-cell-1.json)
 *   FAKE_TF_FAIL=step  that step prints an error on stderr and exits 1
 *   FAKE_TF_STDERR_LINES=N  a failing step first prints N lines "progress line <i>" on stderr
 *   FAKE_TF_HANG=step  that step waits for a signal; on SIGINT/SIGTERM it logs {signal} and exits 1
 *   FAKE_TF_NO_CHANGES=1  plan finds nothing to do
 *   FAKE_TF_ECHO=text  every step prints this text on stdout, a failing step also on stderr (to test redaction)
 *   FAKE_TF_ECHO_ENV=A,B  every step prints "A=<value>" (or "A is unset") for each named variable, as a
 *                      careless provider or TF_LOG=trace would
 *   FAKE_TF_VERSION    version reported by `version` (default 1.11.4)
 *   FAKE_TF_STALE_PLAN=FILE  apply of that plan file fails as the real engine does when the state changed since the plan
 *   FAKE_TF_STATE=FILE stateful mode: plan compares the stack (cdk.tf.json) with the resources in FILE
 *                      (create / update / delete / no-op, a resource with lifecycle.ignore_changes = "all"
 *                      keeps its state), show -json prints those changes, apply writes them to FILE and
 *                      logs {applied: [updated or deleted addresses], created: [addresses]}
 *   FAKE_TF_FAIL_APPLY_NUMBER=N  stateful mode: the Nth apply (counted in FILE.applies) fails
 *   Stateful mode also follows two rules of the real engine and the Google provider:
 *   - `moved` blocks ({from, to}) move a resource's state to its new address before planning, when the
 *     old address has state and the new one has none (Terraform's "Refactoring" docs, moved blocks);
 *   - a google_compute_instance_template cannot be updated in place (every argument forces a new one, so
 *     a change plans ["create", "delete"], create_before_destroy), and each one created gets an ID
 *     (state `ids`). FAKE_GCE_IN_USE=FILE: JSON {vm: template ID}, the templates the cloud's VMs run
 *     from. An apply that would delete a template some VM runs from fails as the Compute API refuses it,
 *     "Error 400: The instance_template resource '...' is already being used by '...',
 *     resourceInUseByAnotherResource" (hashicorp/terraform-provider-google#6277, hashicorp/terraform#21865),
 *     and changes nothing (the real engine would have made the new template and left the old one deposed).
 * Like the real engine, plan needs a prior init (.terraform/ in the working directory).
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const argv = process.argv.slice(2);
const env = process.env;

function log(entry) {
  if (env.FAKE_TF_LOG) fs.appendFileSync(env.FAKE_TF_LOG, `${JSON.stringify(entry)}\n`);
}

log({
  argv,
  cwd: process.cwd(),
  env: { TF_IN_AUTOMATION: env.TF_IN_AUTOMATION, TF_HTTP_USERNAME: env.TF_HTTP_USERNAME, TF_HTTP_PASSWORD: env.TF_HTTP_PASSWORD },
  envNames: Object.keys(env).sort(),
});

const out = (line = "") => process.stdout.write(`${line}\n`);
const err = (line = "") => process.stderr.write(`${line}\n`);

// Global options such as -chdir=DIR come before the subcommand.
const commandIndex = argv.findIndex((arg) => !arg.startsWith("-"));
const command = commandIndex === -1 ? undefined : argv[commandIndex];
const args = commandIndex === -1 ? [] : argv.slice(commandIndex + 1);
const flags = args.filter((arg) => arg.startsWith("-"));
const positional = args.filter((arg) => !arg.startsWith("-"));
const flagValue = (name) => flags.find((flag) => flag.startsWith(`-${name}=`))?.slice(name.length + 2);

/** Thrown by fail() to end the command; the process then exits on its own, after its output is flushed. */
const STOP = Symbol("stop");

function fail(title, detail, code = 1) {
  writeError(title, detail);
  process.exitCode = code;
  throw STOP;
}

function writeError(title, detail) {
  err("");
  err(`Error: ${title}`);
  err("");
  if (detail) err(`  ${detail}`);
  err("");
}

function readPlanFixture() {
  const file = env.FAKE_TF_PLAN_JSON || path.join(__dirname, "fixtures", "plan-cell-1.json");
  return JSON.parse(fs.readFileSync(file, "utf8"));
}

const changed = (change) => !change.change.actions.every((action) => action === "no-op" || action === "read");

async function main() {
  // show -json keeps stdout for the JSON document, so there the echo goes to stderr.
  const echo = command === "show" ? err : out;
  if (env.FAKE_TF_ECHO && command !== "version") echo(env.FAKE_TF_ECHO);
  if (env.FAKE_TF_ECHO_ENV && command !== "version") {
    for (const name of env.FAKE_TF_ECHO_ENV.split(",")) echo(name in env ? `${name}=${env[name]}` : `${name} is unset`);
  }
  if (env.FAKE_TF_FAIL && env.FAKE_TF_FAIL === command) {
    out(`fake-terraform: starting ${command}`);
    if (env.FAKE_TF_ECHO) err(env.FAKE_TF_ECHO);
    for (let line = 1; line <= Number(env.FAKE_TF_STDERR_LINES || 0); line++) err(`progress line ${line}`);
    fail(`${command} failed (FAKE_TF_FAIL)`, `The simulated failure of "terraform ${command}" happened here.`);
  }
  if (env.FAKE_TF_HANG && env.FAKE_TF_HANG === command) await hangUntilSignal();

  switch (command) {
    case "version":
      return version();
    case "init":
      return init();
    case "plan":
      return plan();
    case "show":
      return show();
    case "apply":
      return apply();
    case "destroy":
      return destroy();
    default:
      fail(`unknown command ${JSON.stringify(command)}`, "fake-terraform knows version, init, plan, show, apply and destroy.");
  }
}

function hangUntilSignal() {
  return new Promise((_resolve, reject) => {
    const timer = setInterval(() => {}, 1000);
    const stop = (signal) => {
      clearInterval(timer);
      log({ signal });
      out("Interrupt received.");
      out("Please wait for Terraform to exit or data loss may occur.");
      out("Gracefully shutting down...");
      writeError("Operation cancelled", `${signal} received`);
      process.exitCode = 1;
      reject(STOP);
    };
    process.once("SIGINT", () => stop("SIGINT"));
    process.once("SIGTERM", () => stop("SIGTERM"));
    out(`fake-terraform: ${command} waits for a signal`);
  });
}

function version() {
  const number = env.FAKE_TF_VERSION || "1.11.4";
  if (flags.includes("-json")) {
    out(JSON.stringify({ terraform_version: number, platform: "linux_amd64", provider_selections: {}, terraform_outdated: false }, null, 2));
  } else {
    out(`Terraform v${number}`);
    out("on linux_amd64");
  }
}

function init() {
  fs.mkdirSync(".terraform", { recursive: true });
  out("Initializing the backend...");
  out("Initializing provider plugins...");
  out("- Finding hashicorp/google versions matching \"6.50.0\"...");
  out("- Installing hashicorp/google v6.50.0...");
  out("");
  out("Terraform has been successfully initialized!");
}

const REPLACED_ON_CHANGE = new Set(["google_compute_instance_template"]);

function readState() {
  const saved = fs.existsSync(env.FAKE_TF_STATE) ? JSON.parse(fs.readFileSync(env.FAKE_TF_STATE, "utf8")) : {};
  return { resources: saved.resources || {}, ids: saved.ids || {}, created: saved.created || 0 };
}

/** Stateful mode: the stack's resources against the state file. */
function statefulPlan() {
  const stack = JSON.parse(fs.readFileSync("cdk.tf.json", "utf8"));
  const { resources: state, ids, created: createdSoFar } = readState();
  for (const move of stack.moved || []) {
    if (move.from in state && !(move.to in state)) {
      state[move.to] = state[move.from];
      delete state[move.from];
      if (move.from in ids) {
        ids[move.to] = ids[move.from];
        delete ids[move.from];
      }
    }
  }
  const changes = [];
  const next = {};
  const nextIds = {};
  // IDs of the objects this plan deletes (a deleted resource's, or the one a replacement leaves behind).
  const deletes = [];
  let created = createdSoFar;
  const newId = (type) => `${type.replace(/^google_compute_/, "").replace(/_/g, "-")}-${++created}`;
  for (const [type, byName] of Object.entries(stack.resource || {})) {
    for (const [name, body] of Object.entries(byName)) {
      const address = `${type}.${name}`;
      const { "//": _metadata, lifecycle, ...settings } = body;
      const config = JSON.stringify(settings);
      const held = lifecycle && lifecycle.ignore_changes === "all";
      let actions = ["no-op"];
      if (!(address in state)) actions = ["create"];
      else if (!held && state[address] !== config) actions = REPLACED_ON_CHANGE.has(type) ? ["create", "delete"] : ["update"];
      next[address] = held && address in state ? state[address] : config;
      if (REPLACED_ON_CHANGE.has(type)) nextIds[address] = actions[0] === "create" ? newId(type) : ids[address];
      if (actions[1] === "delete") deletes.push({ address, id: ids[address] });
      changes.push({ address, type, name, actions });
    }
  }
  for (const address of Object.keys(state)) {
    if (address in next) continue;
    changes.push({ address, type: address.split(".")[0], name: address.split(".")[1], actions: ["delete"] });
    if (address in ids) deletes.push({ address, id: ids[address] });
  }
  return { changes, next, ids: nextIds, created, deletes };
}

/** The Compute API's refusal to delete a template a VM still runs from (FAKE_GCE_IN_USE). */
function refuseDeletingTemplatesInUse(deletes) {
  if (!env.FAKE_GCE_IN_USE || !fs.existsSync(env.FAKE_GCE_IN_USE)) return;
  const vms = JSON.parse(fs.readFileSync(env.FAKE_GCE_IN_USE, "utf8"));
  for (const { address, id } of deletes) {
    const vm = Object.keys(vms).find((name) => vms[name] === id);
    if (!vm) continue;
    fail(
      `Error deleting instance template: googleapi: Error 400: The instance_template resource 'projects/fake/global/instanceTemplates/${id}' is already being used by 'projects/fake/zones/fake-a/instances/${vm}', resourceInUseByAnotherResource`,
      `with ${address}`,
    );
  }
}

function plan() {
  if (!fs.existsSync(".terraform")) {
    fail("Backend initialization required, please run \"terraform init\"", "Reason: Initial configuration of the requested backend.");
  }
  if (env.FAKE_TF_STATE) {
    const { changes, next, ids, created, deletes } = statefulPlan();
    const outFile = flagValue("out");
    if (outFile) fs.writeFileSync(outFile, JSON.stringify({ fakePlan: true, stateful: true, changes, next, ids, created, deletes }));
    const changed = changes.filter((change) => change.actions[0] !== "no-op");
    if (changed.length === 0) return out("No changes. Your infrastructure matches the configuration.");
    for (const change of changed) out(`  # ${change.address} will be ${change.actions.join(", then ")}`);
    out(`Plan: ${changed.length} to change.`);
    if (flags.includes("-detailed-exitcode")) process.exitCode = 2;
    return;
  }
  const destroying = flags.includes("-destroy");
  const fixture = readPlanFixture();
  const changes = env.FAKE_TF_NO_CHANGES ? [] : (fixture.resource_changes || []).filter(changed);
  const outFile = flagValue("out");
  if (outFile) {
    fs.writeFileSync(outFile, JSON.stringify({ fakePlan: true, destroy: destroying, noChanges: Boolean(env.FAKE_TF_NO_CHANGES), fixture: env.FAKE_TF_PLAN_JSON || null }));
  }
  if (changes.length === 0) {
    out("No changes. Your infrastructure matches the configuration.");
    return;
  }
  out("Terraform will perform the following actions:");
  for (const change of changes) out(`  # ${change.address} will be ${destroying ? "destroyed" : change.change.actions.join(", then ")}`);
  out(`Plan: ${changes.length} to change.`);
  if (flags.includes("-detailed-exitcode")) process.exitCode = 2;
}

function show() {
  const file = positional[0];
  if (!flags.includes("-json") || !file) fail("fake-terraform supports only show -json PLANFILE");
  if (!fs.existsSync(file)) fail(`Failed to read the given file as a state or plan file`, `open ${file}: no such file or directory`);
  let saved;
  try {
    saved = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    // As the real engine words a file that is no plan (command/show.go, getPlanFromPath).
    fail(`Failed to read the given file as a state or plan file`, `${file} is not a plan file`);
  }
  if (saved.stateful) {
    const resourceChanges = saved.changes.map((change) => ({
      address: change.address,
      mode: "managed",
      type: change.type,
      name: change.name,
      change: { actions: change.actions, before: change.actions.join() === "create" ? null : {}, after: change.actions.join() === "delete" ? null : {} },
    }));
    return out(JSON.stringify({ format_version: "1.2", terraform_version: "1.11.4", resource_changes: resourceChanges }));
  }
  const fixture = saved.fixture ? JSON.parse(fs.readFileSync(saved.fixture, "utf8")) : readPlanFixture();
  let resourceChanges = fixture.resource_changes || [];
  if (saved.noChanges) resourceChanges = resourceChanges.map((change) => ({ ...change, change: { ...change.change, actions: ["no-op"] } }));
  if (saved.destroy) {
    resourceChanges = resourceChanges
      .filter((change) => change.mode === "managed" && change.change.before !== null)
      .map((change) => ({ ...change, change: { ...change.change, actions: ["delete"], after: null, after_unknown: {}, after_sensitive: false } }));
  }
  out(JSON.stringify({ ...fixture, resource_changes: resourceChanges }));
}

function apply() {
  const file = positional[0];
  if (file) {
    if (!fs.existsSync(file)) fail("Failed to load \"" + file + "\" as a plan file", "stat " + file + ": no such file or directory");
    if (env.FAKE_TF_STALE_PLAN && path.resolve(file) === path.resolve(env.FAKE_TF_STALE_PLAN)) {
      fail("Saved plan is stale", "The given plan file can no longer be applied because the state was changed by another operation after the plan was created.");
    }
  } else if (!flags.includes("-auto-approve")) {
    fail("No value for required variable", "apply without a plan file needs -auto-approve when input is disabled");
  }
  if (env.FAKE_TF_STATE && file) {
    const saved = JSON.parse(fs.readFileSync(file, "utf8"));
    const counter = `${env.FAKE_TF_STATE}.applies`;
    const number = (fs.existsSync(counter) ? Number(fs.readFileSync(counter, "utf8")) : 0) + 1;
    fs.writeFileSync(counter, String(number));
    if (String(number) === env.FAKE_TF_FAIL_APPLY_NUMBER) fail(`apply number ${number} failed (FAKE_TF_FAIL_APPLY_NUMBER)`, "The simulated failure happened before anything changed.");
    refuseDeletingTemplatesInUse(saved.deletes || []);
    const created = saved.changes.filter((change) => change.actions[0] === "create").map((change) => change.address);
    const applied = saved.changes.filter((change) => change.actions.includes("update") || change.actions.includes("delete")).map((change) => change.address);
    fs.writeFileSync(env.FAKE_TF_STATE, JSON.stringify({ resources: saved.next, ids: saved.ids, created: saved.created }));
    log({ applied, created });
    out(`Apply complete! Resources: ${created.length} added, ${applied.length} changed or destroyed.`);
    return;
  }
  const changes = (readPlanFixture().resource_changes || []).filter(changed);
  for (const change of changes) out(`${change.address}: Creating...`);
  out("");
  out(`Apply complete! Resources: ${changes.length} added, 0 changed, 0 destroyed.`);
}

function destroy() {
  if (!flags.includes("-auto-approve")) fail("Destroy cancelled", "destroy needs -auto-approve when input is disabled");
  out("Destroy complete! Resources: 0 destroyed.");
}

main().catch((error) => {
  if (error === STOP) return;
  writeError("fake-terraform crashed", String(error && error.stack));
  process.exitCode = 1;
});
