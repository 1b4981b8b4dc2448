/**
 * The Google Cloud APIs the fleet's resources and VMs call, enabled in the project. A new project has them
 * off, so the first apply fails at the first resource of a disabled API ("... API has not been used in
 * project ... or it is disabled"), and the managers' GCS cache URL signing (signBlob, IAM Credentials API)
 * fails at run time. Each is a `google_project_service` with `disable_on_destroy = false`: destroying a cell
 * must not switch off an API other workloads of the project use (registry.terraform.io/providers/hashicorp/
 * google/latest/docs/resources/google_project_service). Service Usage itself (serviceusage.googleapis.com)
 * is on in every new project and is what enables the rest.
 */
import { ProjectService } from "@cdktf/provider-google/lib/project-service";
import { TerraformDataSource, TerraformResource, dependable } from "cdktf";
import { Construct, type IConstruct } from "constructs";
import { fail } from "./checks";

/** What the fleet calls, and why. */
export const FLEET_SERVICES: Readonly<Record<string, string>> = {
  "compute.googleapis.com": "networks, NAT, firewall rules, instance templates and groups, health checks",
  "iam.googleapis.com": "the managers' service account and the fleeting plugin's custom role",
  "cloudresourcemanager.googleapis.com": "project IAM bindings of the managers' service account",
  "iamcredentials.googleapis.com": "signed GCS URLs of the runner cache (signBlob as the managers' service account)",
  "secretmanager.googleapis.com": "the runner tokens and config.toml files the managers read",
  "storage.googleapis.com": "the cache buckets",
  "logging.googleapis.com": "the Ops Agent's runner logs",
  "monitoring.googleapis.com": "the Ops Agent's runner metrics, dashboards and alert policies",
};

export interface ProjectServicesProps {
  readonly project: string;
  /**
   * Services to enable.
   * @default - every service of FLEET_SERVICES
   */
  readonly services?: readonly string[];
}

export class ProjectServices extends Construct {
  public readonly services: readonly string[];
  public readonly resources: readonly ProjectService[];

  constructor(scope: Construct, id: string, props: ProjectServicesProps) {
    super(scope, id);
    this.services = props.services ?? Object.keys(FLEET_SERVICES);
    for (const service of this.services) {
      if (!/^[a-z][a-z0-9-]*(\.[a-z0-9-]+)*\.googleapis\.com$/.test(service)) fail(this, "services", service, "a service name such as compute.googleapis.com");
    }
    this.resources = this.services.map(
      (service) =>
        new ProjectService(this, service.split(".")[0], {
          project: props.project,
          service,
          // Other workloads of the project may use the same APIs: destroying the cell leaves them on.
          disableOnDestroy: false,
          disableDependentServices: false,
        }),
    );
  }

  /**
   * Make every resource and data source under `scope` (these services excepted) wait for the services, so
   * nothing is created, or read, before its API is on.
   */
  public precede(scope: IConstruct): void {
    // dependable(): the bare address Terraform wants in depends_on (a "${...}" template is refused there).
    const fqns = this.resources.map((resource) => dependable(resource));
    const own = new Set<IConstruct>(this.node.findAll());
    for (const node of scope.node.findAll()) {
      if (own.has(node)) continue;
      if (node instanceof TerraformResource || node instanceof TerraformDataSource) {
        node.dependsOn = [...new Set([...(node.dependsOn ?? []), ...fqns])];
      }
    }
  }
}
