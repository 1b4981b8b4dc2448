/**
 * The report GitLab's merge request Terraform widget reads (`artifacts:reports:terraform`):
 * `{"create": n, "update": n, "delete": n}`, counted the way GitLab's own tooling does
 * (gitlab-terraform `plan-json`, the OpenTofu component): every action of every resource change,
 * flattened, so a replacement counts once as a create and once as a delete, and reads (data
 * sources) and no-ops count nowhere.
 * See https://docs.gitlab.com/user/infrastructure/iac/mr_integration/
 */
import type { PlanJson } from "../terraform/plan-json";

export interface TerraformReport {
  readonly create: number;
  readonly update: number;
  readonly delete: number;
}

export function terraformReport(plan: PlanJson): TerraformReport {
  const actions = (plan.resource_changes ?? []).flatMap((change) => change.change.actions);
  const count = (action: string) => actions.filter((entry) => entry === action).length;
  return { create: count("create"), update: count("update"), delete: count("delete") };
}

/** One report for a job that planned several cells: the widget shows one line per report file. */
export function sumReports(reports: readonly TerraformReport[]): TerraformReport {
  return reports.reduce((sum, report) => ({ create: sum.create + report.create, update: sum.update + report.update, delete: sum.delete + report.delete }), {
    create: 0,
    update: 0,
    delete: 0,
  });
}
