/**
 * The autoscaling policies of a runner: docker+machine's [runners.machine] idle settings and its
 * [[runners.machine.autoscaling]] entries, or the docker-autoscaler's [[runners.autoscaler.policy]].
 *
 * How docker+machine's settings become the autoscaler's (docs.gitlab.com/runner/configuration/autoscale.html):
 * - IdleCount, IdleTime (seconds) are the idle_count and idle_time of a policy that always applies
 *   ("* * * * *"), and each [[runners.machine.autoscaling]] is one more policy after it; the last matching
 *   one wins in both executors.
 * - the IdleScaleFactor strategy keeps max(IdleCountMin, min(IdleCount, in-use x IdleScaleFactor)) machines
 *   idle; the autoscaler's policy keeps max(idle_count, min(scale_factor_limit, in-use x scale_factor)):
 *   IdleCountMin (default 1) is idle_count, IdleScaleFactor scale_factor and IdleCount scale_factor_limit.
 * - idle counts above the slots (max_instances x capacity) are capped there, as docker+machine caps idle
 *   machines at `limit`.
 */
import { parseGoDurationSeconds } from "../../lib/model/duration";
import { closestTimeZone, isValidTimeZone } from "../../lib/model/value-checks";
import type { KeyLedger } from "./key-ledger";
import { translateMachinePeriod } from "./period-translation";
import { formatTomlPath, type TomlPath } from "./toml-source";

type Note = (text: string) => void;

function duration(seconds: number): string {
  if (seconds > 0 && seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds > 0 && seconds % 60 === 0) return `${seconds / 60}m`;
  return `${seconds}s`;
}

export function readMachinePolicies(ledger: KeyLedger, machine: TomlPath, slots: number, note: Note): Array<Record<string, unknown>> {
  const policy = (at: TomlPath, periods: string[] | undefined): Record<string, unknown> => {
    const idleCount = ledger.integer([...at, "IdleCount"], 0) ?? 0;
    const idleTime = ledger.integer([...at, "IdleTime"], 0);
    const factor = ledger.number([...at, "IdleScaleFactor"], 0);
    const minimum = ledger.integer([...at, "IdleCountMin"], 0);
    const timezone = modelTimeZone(ledger, [...at, "Timezone"], note);
    const scaled = factor !== undefined && factor > 0;
    const idle = scaled ? (minimum ?? 1) : idleCount;
    const capped = Math.min(idle, slots);
    if (capped < idle) note(`${formatTomlPath(at)}: idle count ${idle} is above the ${slots} machines the runner may run; capped at ${capped}`);
    if (minimum !== undefined && !scaled) ledger.explain([...at, "IdleCountMin"], "IdleCountMin applies only with IdleScaleFactor, which is not set");
    return {
      ...(periods ? { periods } : {}),
      ...(timezone ? { timezone } : {}),
      idle_count: capped,
      ...(idleTime === undefined ? {} : { idle_time: duration(idleTime) }),
      ...(scaled ? { scale_factor: factor, scale_factor_limit: Math.min(idleCount, slots) } : {}),
    };
  };
  const policies = [policy(machine, ["* * * * *"])];
  const count = ledger.tables([...machine, "autoscaling"]);
  for (let index = 0; index < count; index++) {
    const at = [...machine, "autoscaling", index];
    const periods = (ledger.strings([...at, "Periods"]) ?? []).map((period, periodIndex) => {
      const translated = translateMachinePeriod(period);
      if (!translated.ok) ledger.refuse([...at, "Periods", periodIndex], translated.reason, period);
      if (translated.note) note(translated.note);
      return translated.period;
    });
    if (periods.length === 0) ledger.refuse([...at, "Periods"], "at least one period", undefined);
    if (!ledger.has([...at, "Timezone"])) note(`${formatTomlPath(at)}: no Timezone; gitlab-runner used the manager's local time zone, the model uses UTC`);
    policies.push(policy(at, periods));
  }
  return policies;
}

/** Go's time.LoadLocation reads "Local" (and "") as the manager's own zone, which the model cannot name: UTC. */
function modelTimeZone(ledger: KeyLedger, path: TomlPath, note: Note): string | undefined {
  const zone = ledger.string(path);
  if (zone === undefined) return undefined;
  if (zone === "" || zone === "Local") {
    note(`${formatTomlPath(path)}: time zone ${JSON.stringify(zone)} is the old manager's own; the model uses UTC: set the zone it was`);
    return undefined;
  }
  if (!isValidTimeZone(zone)) {
    const nearest = closestTimeZone(zone);
    ledger.refuse(path, `an IANA time zone such as "Europe/Berlin"${nearest ? ` (did you mean "${nearest}"?)` : ""}`, zone);
  }
  return zone;
}

export function readAutoscalerPolicies(ledger: KeyLedger, autoscaler: TomlPath, slots: number, note: Note): Array<Record<string, unknown>> {
  const count = ledger.tables([...autoscaler, "policy"]);
  const policies: Array<Record<string, unknown>> = [];
  for (let index = 0; index < count; index++) {
    const at = [...autoscaler, "policy", index];
    const periods = ledger.strings([...at, "periods"])?.map((period, periodIndex) => {
      const translated = translateMachinePeriod(period);
      if (!translated.ok) ledger.refuse([...at, "periods", periodIndex], translated.reason, period);
      if (translated.note) note(translated.note);
      return translated.period;
    });
    // Without timezone the periods are read in the manager's local time: gitlab-runner passes the policy's
    // timezone (common/config.go AutoscalerPolicyConfig.Timezone) to taskscaler as it is
    // (executors/internal/autoscaler/provider.go), and the docs' [[runners.autoscaler.policy]] table gives
    // the system's local time zone as its default, as docker+machine's Timezone ("defaults to Local").
    if (periods && !ledger.has([...at, "timezone"]) && periods.some((period) => period !== "* * * * *")) {
      note(`${formatTomlPath(at)}: no timezone; gitlab-runner read its periods in the manager's local time zone, the model uses UTC: set timezone to the zone the old manager ran in`);
    }
    const timezone = modelTimeZone(ledger, [...at, "timezone"], note);
    const idleCount = ledger.integer([...at, "idle_count"], 0) ?? 0;
    const idleTime = ledger.string([...at, "idle_time"]);
    if (idleTime !== undefined && parseGoDurationSeconds(idleTime) === undefined) ledger.refuse([...at, "idle_time"], 'a Go duration such as "20m" or "1h30m"', idleTime);
    const factor = ledger.number([...at, "scale_factor"], 0);
    const factorLimit = ledger.integer([...at, "scale_factor_limit"], 0);
    const capped = Math.min(idleCount, slots);
    if (capped < idleCount) note(`${formatTomlPath(at)}: idle_count ${idleCount} is above the ${slots} slots (max_instances x capacity_per_instance); capped at ${capped}`);
    policies.push({
      ...(periods ? { periods } : {}),
      ...(timezone ? { timezone } : {}),
      idle_count: capped,
      ...(idleTime ? { idle_time: idleTime } : {}),
      ...(factor === undefined ? {} : { scale_factor: factor }),
      ...(factorLimit === undefined ? {} : { scale_factor_limit: factorLimit }),
    });
  }
  return policies.length > 0 ? policies : [{ periods: ["* * * * *"], idle_count: 0 }];
}
