/**
 * The cell's network on Google Cloud: a VPC and subnetwork (or existing ones), Cloud NAT for
 * egress, and the firewall rules that let managers reach their workers and nothing else in.
 */
import { ComputeAddress } from "@cdktf/provider-google/lib/compute-address";
import { ComputeFirewall } from "@cdktf/provider-google/lib/compute-firewall";
import { ComputeNetwork } from "@cdktf/provider-google/lib/compute-network";
import { ComputeRouter } from "@cdktf/provider-google/lib/compute-router";
import { ComputeRouterNat } from "@cdktf/provider-google/lib/compute-router-nat";
import { ComputeSubnetwork } from "@cdktf/provider-google/lib/compute-subnetwork";
import { Annotations } from "cdktf";
import { Construct } from "constructs";
import ipaddr from "ipaddr.js";
import { RUNNER_METRICS_PORT } from "../../lib/contract/fleet-contract";
import { cidrsOverlap, isValidCidr } from "../../lib/network/cidr";
import { checkComputeName, checkPrivateSourceCidr, checkUnique, fail, isToken } from "./checks";

/**
 * Source ranges of Google Cloud health checks. Managed instance group autohealing probes the
 * managers' metrics port from these, so they must be allowed or every manager is recreated forever.
 */
export const GOOGLE_HEALTH_CHECK_RANGES: readonly string[] = ["35.191.0.0/16", "130.211.0.0/22"];

/** How one shard's managers and workers are told apart by the firewall. */
export interface ShardFirewallProps {
  /** The shard's prefix, for example "cell-1-small-amd64": names its rules' constructs and descriptions. */
  readonly namePrefix: string;
  /** Names of the shard's firewall rules (`shardFirewallName` in lib/model/google-names.ts). */
  readonly ruleNames: ShardFirewallRuleNames;
  /** Network tag carried by the shard's runner managers. */
  readonly managerTag: string;
  /** Network tag carried by the shard's workers. */
  readonly workerTag: string;
}

export interface ShardFirewallRuleNames {
  readonly workerSsh: string;
  readonly managerMetrics: string;
  /** Only created with `managerSshSourceRanges`. */
  readonly managerSsh: string;
  readonly denyOtherIngress: string;
}

/** Names of what a created network is made of (lib/model/google-names.ts). */
export interface CreatedNetworkNames {
  readonly subnetwork: string;
  /** Only created with `nat`. */
  readonly router: string;
  /** Only created with `nat`. */
  readonly nat: string;
}

export interface FleetNetworkProps {
  /** Name of the created network. */
  readonly name: string;
  /** Names of the created subnetwork, router and NAT. Required unless `existingNetwork` is set. */
  readonly createdNames?: CreatedNetworkNames;
  /** Project of every resource. @default - the provider's project */
  readonly project?: string;
  /** Region of the subnetwork, router and NAT. */
  readonly region: string;
  /**
   * Primary range of the created subnetwork. Required unless `existingNetwork` is set, exclusive with it.
   * @default - none: an existing network must be named
   */
  readonly ipCidrRange?: string;
  /** Name or self link of an existing network to use instead of creating one. @default - a network is created */
  readonly existingNetwork?: string;
  /** Name or self link of an existing subnetwork of `existingNetwork`; required with it. @default - a subnetwork is created */
  readonly existingSubnetwork?: string;
  /**
   * Create a Cloud Router and Cloud NAT so VMs without external IPs reach the internet.
   * Only for a created network: an existing network must already route egress.
   * @default true
   */
  readonly nat?: boolean;
  /**
   * Cloud NAT ports per VM, with dynamic port allocation: every VM holds `min`, and grows to `max` while it
   * opens many connections (to one registry, say). Powers of two, 32 <= min < max <= 65536
   * (cloud.google.com/nat/docs/ports-and-addresses#dynamic-port).
   * @default { min: 256, max: 8192 }
   */
  readonly natPortsPerVm?: { readonly min: number; readonly max: number };
  /**
   * Names of reserved static external addresses for Cloud NAT (MANUAL_ONLY); each serves 64512 / min ports VMs.
   * @default [] - automatic addresses (AUTO_ONLY), which change as the fleet grows
   */
  readonly natAddressNames?: readonly string[];
  /** Ranges allowed to scrape the managers' metrics port (in addition to Google's health checkers). @default [] */
  readonly monitoringSourceRanges?: readonly string[];
  /**
   * Ranges allowed to SSH into managers, for example Identity-Aware Proxy's 35.235.240.0/20 for OS Login users.
   * @default [] - no SSH to managers
   */
  readonly managerSshSourceRanges?: readonly string[];
  /** One entry per shard: the tags its firewall rules use. @default [] */
  readonly shards?: readonly ShardFirewallProps[];
  /** Port of the runner's Prometheus metrics listener. @default 9252 */
  readonly metricsPort?: number;
}

/** Priority of the allow rules; the catch-all deny below sits after them. */
const ALLOW_PRIORITY = 1000;
/**
 * Denies every other ingress to the fleet's tags, ahead of broad rules a shared or default network
 * may already carry (such as default-allow-ssh from 0.0.0.0/0 at priority 65534).
 */
const DENY_PRIORITY = 2000;

export class FleetNetwork extends Construct {
  /** Network name or self link, as firewall rules and instance templates take it. */
  public readonly network: string;
  /** Subnetwork name or self link, as instance templates take it. */
  public readonly subnetwork: string;
  /** True when this construct created the network (and so manages NAT and Private Google Access). */
  public readonly createsNetwork: boolean;
  public readonly natEnabled: boolean;
  public readonly natPortsPerVm: { readonly min: number; readonly max: number };
  /** Name of the Cloud NAT gateway (the `gateway_name` of its metrics); undefined without NAT. */
  public readonly natName?: string;
  /** Reserved NAT addresses (created here); empty with automatic addresses. */
  public readonly natAddresses: ComputeAddress[] = [];
  public readonly monitoringSourceRanges: readonly string[];
  public readonly managerSshSourceRanges: readonly string[];
  public readonly metricsPort: number;
  public readonly firewalls: ComputeFirewall[] = [];

  constructor(scope: Construct, id: string, props: FleetNetworkProps) {
    super(scope, id);
    this.monitoringSourceRanges = props.monitoringSourceRanges ?? [];
    this.managerSshSourceRanges = props.managerSshSourceRanges ?? [];
    this.metricsPort = props.metricsPort ?? RUNNER_METRICS_PORT;
    this.createsNetwork = props.existingNetwork === undefined;
    this.natEnabled = this.createsNetwork && (props.nat ?? true);
    this.natPortsPerVm = props.natPortsPerVm ?? { min: 256, max: 8192 };
    this.checkProps(props);

    if (this.createsNetwork) {
      const network = new ComputeNetwork(this, "Resource", {
        name: props.name,
        project: props.project,
        autoCreateSubnetworks: false,
        routingMode: "REGIONAL",
        // The default route to the internet is what Cloud NAT uses; VMs still have no external IPs.
        deleteDefaultRoutesOnCreate: false,
      });
      const subnetwork = new ComputeSubnetwork(this, "Subnetwork", {
        name: props.createdNames!.subnetwork,
        project: props.project,
        region: props.region,
        network: network.id,
        ipCidrRange: props.ipCidrRange!,
        // Managers reach Secret Manager, Cloud Storage and Monitoring without external IPs.
        privateIpGoogleAccess: true,
      });
      this.network = network.selfLink;
      this.subnetwork = subnetwork.selfLink;
      if (this.natEnabled) {
        const router = new ComputeRouter(this, "Router", {
          name: props.createdNames!.router,
          project: props.project,
          region: props.region,
          network: network.id,
        });
        (props.natAddressNames ?? []).forEach((name) => {
          this.natAddresses.push(
            new ComputeAddress(this, `NatAddress-${name}`, {
              name,
              project: props.project,
              region: props.region,
              addressType: "EXTERNAL",
              description: `Cloud NAT egress address of ${props.name}: allow-list it where GitLab or a registry filters by source.`,
            }),
          );
        });
        this.natName = props.createdNames!.nat;
        new ComputeRouterNat(this, "Nat", {
          name: props.createdNames!.nat,
          project: props.project,
          region: props.region,
          router: router.name,
          // Reserved addresses stay put (allow-lists keep working); automatic ones come and go with the fleet.
          natIpAllocateOption: this.natAddresses.length > 0 ? "MANUAL_ONLY" : "AUTO_ONLY",
          natIps: this.natAddresses.length > 0 ? this.natAddresses.map((address) => address.selfLink) : undefined,
          sourceSubnetworkIpRangesToNat: "LIST_OF_SUBNETWORKS",
          subnetwork: [{ name: subnetwork.id, sourceIpRangesToNat: ["ALL_IP_RANGES"] }],
          // Static allocation gives every VM 64 ports: a job opening many connections to one registry host
          // drops SYNs (OUT_OF_RESOURCES). Dynamic allocation grows a busy VM's share up to max; it requires
          // endpoint-independent mapping off (RouterNat API reference, enableDynamicPortAllocation).
          enableDynamicPortAllocation: true,
          enableEndpointIndependentMapping: false,
          minPortsPerVm: this.natPortsPerVm.min,
          maxPortsPerVm: this.natPortsPerVm.max,
          logConfig: { enable: true, filter: "ERRORS_ONLY" },
        });
      } else {
        Annotations.of(this).addWarning(
          "Cloud NAT is off and runner VMs have no external IPs: workers cannot pull images or reach GitLab unless the network routes egress another way.",
        );
      }
    } else {
      this.network = props.existingNetwork!;
      this.subnetwork = props.existingSubnetwork!;
      if (props.nat ?? true) {
        Annotations.of(this).addInfo(
          "Using an existing network: no Cloud NAT is created; the network must already route egress, and its subnetwork should have Private Google Access.",
        );
      }
    }

    for (const shard of props.shards ?? []) this.addShardFirewalls(props, shard);
  }

  private checkProps(props: FleetNetworkProps): void {
    checkComputeName(this, "name", props.name);
    if (props.existingNetwork !== undefined) {
      if (props.ipCidrRange !== undefined) {
        fail(this, "ipCidrRange", props.ipCidrRange, "no range when existingNetwork is set (the existing subnetwork has its own)");
      }
      if (props.existingSubnetwork === undefined) {
        fail(this, "existingSubnetwork", undefined, "the name or self link of a subnetwork of the existing network");
      }
      if (props.createdNames !== undefined) {
        fail(this, "createdNames", props.createdNames, "no names of created parts when existingNetwork is set (nothing is created)");
      }
    } else {
      if (props.existingSubnetwork !== undefined) {
        fail(this, "existingSubnetwork", props.existingSubnetwork, "no subnetwork unless existingNetwork is set");
      }
      if (props.ipCidrRange === undefined) {
        fail(this, "ipCidrRange", undefined, "an IPv4 range such as 10.0.0.0/16 for the created subnetwork");
      }
      if (props.createdNames === undefined) {
        fail(this, "createdNames", undefined, "the names of the created subnetwork, router and NAT");
      }
      for (const [part, name] of Object.entries(props.createdNames)) checkComputeName(this, `createdNames.${part}`, name);
      if (!isToken(props.ipCidrRange) && !ipaddr.IPv4.isValidCIDR(props.ipCidrRange!)) {
        fail(this, "ipCidrRange", props.ipCidrRange, "an IPv4 CIDR block such as 10.0.0.0/16");
      }
    }
    const { min, max } = this.natPortsPerVm;
    const portCount = (count: number) => Number.isInteger(count) && count >= 32 && count <= 65536 && (count & (count - 1)) === 0;
    if (!portCount(min)) fail(this, "natPortsPerVm.min", min, "a power of two from 32 to 65536");
    if (!portCount(max) || max <= min) fail(this, "natPortsPerVm.max", max, `a power of two up to 65536, greater than min (${min})`);
    (props.natAddressNames ?? []).forEach((name, i) => checkComputeName(this, `natAddressNames[${i}]`, name));
    checkUnique(this, "natAddressNames", props.natAddressNames ?? []);
    if ((props.natAddressNames ?? []).length > 0 && !this.natEnabled) {
      fail(this, "natAddressNames", props.natAddressNames, "no NAT addresses without a Cloud NAT created here");
    }
    this.monitoringSourceRanges.forEach((range, i) => checkSourceRange(this, `monitoringSourceRanges[${i}]`, range));
    // Workers share the created subnetwork with the managers: a range in it would admit job code to :9252, which
    // also serves gitlab-runner's /debug/pprof and /debug/jobs/list (docs/security.md, "What shares a worker").
    const subnet = props.existingNetwork === undefined ? props.ipCidrRange : undefined;
    if (subnet !== undefined && !isToken(subnet)) {
      this.monitoringSourceRanges.forEach((range, i) => {
        if (!isToken(range) && isValidCidr(range) && cidrsOverlap(subnet, range)) {
          fail(this, `monitoringSourceRanges[${i}]`, range, `a range outside the workers' subnetwork ${subnet}`);
        }
      });
    }
    this.managerSshSourceRanges.forEach((range, i) => checkSourceRange(this, `managerSshSourceRanges[${i}]`, range));
    checkUnique(this, "shards[].namePrefix", (props.shards ?? []).map((shard) => shard.namePrefix));
    (props.shards ?? []).forEach((shard, i) => {
      checkComputeName(this, `shards[${i}].managerTag`, shard.managerTag);
      checkComputeName(this, `shards[${i}].workerTag`, shard.workerTag);
      for (const [rule, name] of Object.entries(shard.ruleNames)) checkComputeName(this, `shards[${i}].ruleNames.${rule}`, name);
      if (!isToken(shard.managerTag) && shard.managerTag === shard.workerTag) {
        fail(this, `shards[${i}].workerTag`, shard.workerTag, "a tag different from the managerTag");
      }
    });
  }

  private addShardFirewalls(props: FleetNetworkProps, shard: ShardFirewallProps): void {
    const names = shard.ruleNames;
    const common = { project: props.project, network: this.network, direction: "INGRESS" };

    // The fleeting connector dials workers over SSH (Docker runs through that tunnel): managers only.
    this.firewalls.push(
      new ComputeFirewall(this, `${shard.namePrefix}-worker-ssh`, {
        ...common,
        name: names.workerSsh,
        description: `SSH to ${shard.namePrefix} workers from that shard's runner managers only.`,
        priority: ALLOW_PRIORITY,
        allow: [{ protocol: "tcp", ports: ["22"] }],
        sourceTags: [shard.managerTag],
        targetTags: [shard.workerTag],
      }),
    );
    // Prometheus scraping by the monitoring ranges, and the autohealing health check.
    this.firewalls.push(
      new ComputeFirewall(this, `${shard.namePrefix}-manager-metrics`, {
        ...common,
        name: names.managerMetrics,
        description: `Runner metrics of ${shard.namePrefix} managers for monitoring and Google health checks.`,
        priority: ALLOW_PRIORITY,
        allow: [{ protocol: "tcp", ports: [String(this.metricsPort)] }],
        sourceRanges: [...this.monitoringSourceRanges, ...GOOGLE_HEALTH_CHECK_RANGES],
        targetTags: [shard.managerTag],
      }),
    );
    if (this.managerSshSourceRanges.length > 0) {
      this.firewalls.push(
        new ComputeFirewall(this, `${shard.namePrefix}-manager-ssh`, {
          ...common,
          name: names.managerSsh,
          description: `SSH (OS Login) to ${shard.namePrefix} managers from the operators' ranges.`,
          priority: ALLOW_PRIORITY,
          allow: [{ protocol: "tcp", ports: ["22"] }],
          sourceRanges: [...this.managerSshSourceRanges],
          targetTags: [shard.managerTag],
        }),
      );
    }
    this.firewalls.push(
      new ComputeFirewall(this, `${shard.namePrefix}-deny-other-ingress`, {
        ...common,
        name: names.denyOtherIngress,
        description: `Any other ingress to ${shard.namePrefix} runner VMs, whatever broader rules the network has.`,
        priority: DENY_PRIORITY,
        deny: [{ protocol: "all" }],
        sourceRanges: ["0.0.0.0/0"],
        targetTags: [shard.managerTag, shard.workerTag],
      }),
    );
  }
}

/** A firewall source range; absent optional ranges are fine. */
function checkSourceRange(scope: Construct, property: string, range: string | undefined): void {
  if (range !== undefined) checkPrivateSourceCidr(scope, property, range);
}
