/**
 * The cell's network on AWS: a VPC with private subnets for managers and workers, public subnets
 * holding the internet gateway's NAT gateway(s), and the two security groups of the fleet.
 * Or, when an existing VPC is named, only the security groups inside it.
 */
import { Construct } from "constructs";
import { Eip } from "@cdktf/provider-aws/lib/eip";
import { InternetGateway } from "@cdktf/provider-aws/lib/internet-gateway";
import { NatGateway } from "@cdktf/provider-aws/lib/nat-gateway";
import { Route } from "@cdktf/provider-aws/lib/route";
import { RouteTable } from "@cdktf/provider-aws/lib/route-table";
import { RouteTableAssociation } from "@cdktf/provider-aws/lib/route-table-association";
import { SecurityGroup } from "@cdktf/provider-aws/lib/security-group";
import { Subnet } from "@cdktf/provider-aws/lib/subnet";
import { Vpc } from "@cdktf/provider-aws/lib/vpc";
import { VpcEndpoint } from "@cdktf/provider-aws/lib/vpc-endpoint";
import { VpcSecurityGroupEgressRule } from "@cdktf/provider-aws/lib/vpc-security-group-egress-rule";
import { VpcSecurityGroupIngressRule } from "@cdktf/provider-aws/lib/vpc-security-group-ingress-rule";
import { RUNNER_METRICS_PORT } from "../../lib/contract/fleet-contract";
import { cidrsOverlap, isValidCidr } from "../../lib/network/cidr";
import { AWS_NAME_RULES } from "../../lib/names/cloud-name-rules";
import {
  NAME_PREFIX,
  NAME_PREFIX_EXPECTED,
  SUBNET_ID,
  VPC_ID,
  checkIds,
  checkName,
  checkNonEmpty,
  checkPattern,
  checkPrivateSourceCidr,
  checkUnique,
  fail,
  isToken,
} from "./checks";
import { endpointServiceName } from "./arns";
import { carveSubnetRanges } from "./subnet-ranges";

const SSH_PORT = 22;
const HTTPS_PORT = 443;
const ANYWHERE = "0.0.0.0/0";

export interface ExistingNetwork {
  /** VPC id (vpc-...). It must already route egress of the private subnets (NAT). */
  readonly vpcId: string;
  /** Private subnet ids (subnet-...), one per availability zone. */
  readonly privateSubnetIds: string[];
}

export interface SecurityGroupNames {
  readonly managers: string;
  readonly workers: string;
  /** Only created with `ssmInterfaceEndpoints`. */
  readonly ssmEndpoints: string;
}

export interface NetworkProps {
  /** Prefix of the Name tags, such as the cell id. */
  readonly namePrefix: string;
  /** Names of the security groups (`securityGroupName` in lib/model/aws-names.ts). */
  readonly securityGroupNames: SecurityGroupNames;
  /** Region of the VPC; names the VPC endpoint services. */
  readonly region: string;
  /** Availability zones the created subnets span, one private and one public subnet in each. */
  readonly availabilityZones: string[];
  /** Range of the created VPC: required without `existing`, refused with it. */
  readonly vpcCidr?: string;
  /**
   * Use an existing VPC and its private subnets instead of creating a network; only the security
   * groups are created in it.
   * @default - a VPC is created
   */
  readonly existing?: ExistingNetwork;
  /**
   * Route the private subnets' egress through a NAT gateway. Managers need egress to GitLab, to the
   * package repositories and to the plugin registry; without NAT they need public IPs in the public subnets.
   * @default true
   */
  readonly natGateway?: boolean;
  /**
   * One NAT gateway per availability zone instead of one for the whole VPC.
   *
   * A NAT gateway costs an hourly charge plus per-GB processing, so by default one gateway serves every
   * zone; the price is that an outage of that gateway's zone also cuts egress of the other zones (the
   * managers there keep running jobs but cannot reach GitLab), and cross-zone traffic to it is billed.
   * Turn this on when a zone outage must not stop the whole fleet.
   * @default false
   */
  readonly natGatewayPerAvailabilityZone?: boolean;
  /**
   * Source ranges allowed to scrape the runner managers' metrics on port 9252.
   * @default [] - nothing may scrape
   */
  readonly monitoringCidrs?: string[];
  /**
   * A gateway endpoint for S3 on the private route tables: cache traffic stays off the NAT gateway
   * (gateway endpoints are free; NAT processing is billed per GB).
   * @default true for a created VPC (an existing VPC is left as it is)
   */
  readonly s3GatewayEndpoint?: boolean;
  /**
   * Interface endpoints for ssm, ssmmessages and ec2messages, so token reads and Session Manager
   * work without NAT. Off by default: each interface endpoint is billed per hour and per zone, and
   * the NAT gateway already reaches these APIs.
   * @default false
   */
  readonly ssmInterfaceEndpoints?: boolean;
  /**
   * Tags of every resource.
   * @default {}
   */
  readonly tags?: Record<string, string>;
}

export class Network extends Construct {
  /** True when this construct created the VPC, false when it uses an existing one. */
  public readonly createsVpc: boolean;
  public readonly vpcId: string;
  /** Private subnets, in `availabilityZones` order for a created VPC. Managers and workers live here. */
  public readonly privateSubnetIds: string[];
  /** Public subnets (NAT gateways; managers only when they get public IPs). Empty for an existing VPC. */
  public readonly publicSubnetIds: string[];
  public readonly vpcCidr?: string;
  public readonly natGateway: boolean;
  public readonly natGatewayPerAvailabilityZone: boolean;
  /** The NAT gateways this network made, with the zone each serves from (none for an existing network). */
  public readonly natGateways: ReadonlyArray<{ readonly zone: string; readonly id: string }>;
  public readonly monitoringCidrs: string[];
  public readonly s3GatewayEndpoint: boolean;
  public readonly ssmInterfaceEndpoints: boolean;
  /** Security group of the runner managers: metrics from the monitoring ranges only. */
  public readonly managerSecurityGroupId: string;
  /** Security group of the workers: SSH from the managers' security group only. */
  public readonly workerSecurityGroupId: string;

  private readonly tags: Record<string, string>;
  private readonly namePrefix: string;
  private readonly securityGroupNames: SecurityGroupNames;

  constructor(scope: Construct, id: string, props: NetworkProps) {
    super(scope, id);
    this.namePrefix = props.namePrefix;
    this.securityGroupNames = props.securityGroupNames;
    this.tags = props.tags ?? {};
    this.createsVpc = props.existing === undefined;
    this.natGateway = props.natGateway ?? true;
    this.natGatewayPerAvailabilityZone = props.natGatewayPerAvailabilityZone ?? false;
    this.monitoringCidrs = props.monitoringCidrs ?? [];
    this.s3GatewayEndpoint = this.createsVpc && (props.s3GatewayEndpoint ?? true);
    this.ssmInterfaceEndpoints = this.createsVpc && (props.ssmInterfaceEndpoints ?? false);
    this.checkProps(props);

    if (props.existing) {
      this.vpcId = props.existing.vpcId;
      this.privateSubnetIds = [...props.existing.privateSubnetIds];
      this.publicSubnetIds = [];
      this.natGateways = [];
    } else {
      this.vpcCidr = props.vpcCidr!;
      const created = this.createVpc(props.region, props.availabilityZones, this.vpcCidr);
      this.vpcId = created.vpcId;
      this.privateSubnetIds = created.privateSubnetIds;
      this.publicSubnetIds = created.publicSubnetIds;
      this.natGateways = created.natGateways;
    }

    const groups = this.createSecurityGroups();
    this.managerSecurityGroupId = groups.managers;
    this.workerSecurityGroupId = groups.workers;
    if (this.ssmInterfaceEndpoints) this.createSsmEndpoints(props.region);
  }

  private checkProps(props: NetworkProps): void {
    checkPattern(this, "namePrefix", props.namePrefix, NAME_PREFIX, NAME_PREFIX_EXPECTED);
    for (const [role, name] of Object.entries(props.securityGroupNames)) {
      checkName(this, `securityGroupNames.${role}`, name, AWS_NAME_RULES.securityGroupName);
    }
    checkUnique(this, "securityGroupNames", Object.values(props.securityGroupNames));
    if (props.existing) {
      if (props.vpcCidr !== undefined) fail(this, "vpcCidr", props.vpcCidr, "no vpcCidr together with `existing` (the existing VPC has its own range)");
      checkPattern(this, "existing.vpcId", props.existing.vpcId, VPC_ID, "a VPC id such as vpc-0123456789abcdef0");
      checkNonEmpty(this, "existing.privateSubnetIds", props.existing.privateSubnetIds, "private subnet id");
      checkIds(this, "existing.privateSubnetIds", props.existing.privateSubnetIds, SUBNET_ID, "a subnet id such as subnet-0123456789abcdef0");
      checkUnique(this, "existing.privateSubnetIds", props.existing.privateSubnetIds);
    } else {
      checkNonEmpty(this, "availabilityZones", props.availabilityZones, "availability zone");
      checkUnique(this, "availabilityZones", props.availabilityZones);
      const cidr = props.vpcCidr;
      if (cidr === undefined) fail(this, "vpcCidr", cidr, "the range of the VPC to create, such as 10.0.0.0/16, unless `existing` names a VPC");
      if (!isToken(cidr)) {
        if (!isValidCidr(cidr)) fail(this, "vpcCidr", cidr, "an IPv4 CIDR block such as 10.0.0.0/16, with no host bits set");
        const prefix = Number(cidr.split("/")[1]);
        // AWS VPCs are /16 to /28; each zone needs a private and a public subnet of at most /28.
        const room = Math.ceil(Math.log2(Math.max(2, props.availabilityZones.length * 2)));
        if (prefix < 16 || prefix + room > 28) {
          fail(this, "vpcCidr", cidr, `a prefix between /16 and /${28 - room}, leaving room for a private and a public subnet in each of ${props.availabilityZones.length} zone(s)`);
        }
      }
    }
    if (!isToken(this.monitoringCidrs)) {
      this.monitoringCidrs.forEach((range, index) => checkPrivateSourceCidr(this, `monitoringCidrs[${index}]`, range));
      checkUnique(this, "monitoringCidrs", this.monitoringCidrs);
      // Workers share the created VPC's private subnets with the managers: a range in it would admit job code to
      // :9252, which also serves gitlab-runner's /debug/pprof and /debug/jobs/list (docs/security.md).
      const vpc = props.existing === undefined ? props.vpcCidr : undefined;
      if (vpc !== undefined && !isToken(vpc)) {
        this.monitoringCidrs.forEach((range, index) => {
          if (!isToken(range) && isValidCidr(range) && cidrsOverlap(vpc, range)) fail(this, `monitoringCidrs[${index}]`, range, `a range outside the VPC ${vpc}, where the workers are`);
        });
      }
    }
  }

  private nameTag(name: string): Record<string, string> {
    return { ...this.tags, Name: `${this.namePrefix}-${name}` };
  }

  private createVpc(region: string, zones: string[], cidr: string) {
    const vpc = new Vpc(this, "Resource", {
      cidrBlock: cidr,
      // DNS support and hostnames: instances resolve AWS endpoints, and interface endpoints need private DNS.
      enableDnsSupport: true,
      enableDnsHostnames: true,
      tags: this.nameTag("vpc"),
    });
    const ranges = carveSubnetRanges(cidr, zones.length);
    const internetGateway = new InternetGateway(this, "internet-gateway", { vpcId: vpc.id, tags: this.nameTag("igw") });

    const publicRouteTable = new RouteTable(this, "public-route-table", { vpcId: vpc.id, tags: this.nameTag("public") });
    new Route(this, "public-default-route", {
      routeTableId: publicRouteTable.id,
      destinationCidrBlock: ANYWHERE,
      gatewayId: internetGateway.id,
    });

    const publicSubnets = zones.map((zone, index) => {
      const subnet = new Subnet(this, `public-subnet-${zone}`, {
        vpcId: vpc.id,
        availabilityZone: zone,
        cidrBlock: ranges.public[index],
        // Launch templates decide about public IPs explicitly; nothing gets one by default.
        mapPublicIpOnLaunch: false,
        tags: this.nameTag(`public-${zone}`),
      });
      new RouteTableAssociation(this, `public-route-table-association-${zone}`, {
        subnetId: subnet.id,
        routeTableId: publicRouteTable.id,
      });
      return subnet;
    });

    const natGateways = !this.natGateway
      ? []
      : (this.natGatewayPerAvailabilityZone ? zones : zones.slice(0, 1)).map((zone, index) => {
          const address = new Eip(this, `nat-address-${zone}`, { domain: "vpc", tags: this.nameTag(`nat-${zone}`) });
          return new NatGateway(this, `nat-gateway-${zone}`, {
            allocationId: address.id,
            subnetId: publicSubnets[index].id,
            connectivityType: "public",
            tags: this.nameTag(`nat-${zone}`),
            dependsOn: [internetGateway],
          });
        });

    // One private route table per zone whatever the NAT mode, so switching modes only changes routes.
    const privateRouteTableIds: string[] = [];
    const privateSubnets = zones.map((zone, index) => {
      const subnet = new Subnet(this, `private-subnet-${zone}`, {
        vpcId: vpc.id,
        availabilityZone: zone,
        cidrBlock: ranges.private[index],
        mapPublicIpOnLaunch: false,
        tags: this.nameTag(`private-${zone}`),
      });
      const routeTable = new RouteTable(this, `private-route-table-${zone}`, { vpcId: vpc.id, tags: this.nameTag(`private-${zone}`) });
      privateRouteTableIds.push(routeTable.id);
      new RouteTableAssociation(this, `private-route-table-association-${zone}`, { subnetId: subnet.id, routeTableId: routeTable.id });
      if (natGateways.length > 0) {
        new Route(this, `private-default-route-${zone}`, {
          routeTableId: routeTable.id,
          destinationCidrBlock: ANYWHERE,
          natGatewayId: natGateways[this.natGatewayPerAvailabilityZone ? index : 0].id,
        });
      }
      return subnet;
    });

    if (this.s3GatewayEndpoint) {
      new VpcEndpoint(this, "s3-gateway-endpoint", {
        vpcId: vpc.id,
        serviceName: endpointServiceName(region, "s3"),
        vpcEndpointType: "Gateway",
        routeTableIds: privateRouteTableIds,
        tags: this.nameTag("s3"),
      });
    }

    return {
      vpcId: vpc.id,
      privateSubnetIds: privateSubnets.map((subnet) => subnet.id),
      publicSubnetIds: publicSubnets.map((subnet) => subnet.id),
      natGateways: natGateways.map((gateway, index) => ({ zone: zones[index], id: gateway.id })),
    };
  }

  private createSecurityGroups(): { managers: string; workers: string } {
    // Rules are separate resources (not inline blocks) so each one is reviewed, added and removed on its own.
    const managers = new SecurityGroup(this, "manager-security-group", {
      name: this.securityGroupNames.managers,
      description: "GitLab runner managers: runner metrics from the monitoring ranges only",
      vpcId: this.vpcId,
      tags: this.nameTag("runner-managers"),
    });
    const workers = new SecurityGroup(this, "worker-security-group", {
      name: this.securityGroupNames.workers,
      description: "GitLab runner workers: SSH from the runner managers only",
      vpcId: this.vpcId,
      tags: this.nameTag("runner-workers"),
    });

    // The docker-autoscaler reaches Docker on a worker through an SSH tunnel: port 22 is the only one it needs.
    new VpcSecurityGroupIngressRule(this, "worker-ssh-from-managers", {
      securityGroupId: workers.id,
      description: "SSH from the runner managers (fleeting connector, Docker over SSH)",
      ipProtocol: "tcp",
      fromPort: SSH_PORT,
      toPort: SSH_PORT,
      referencedSecurityGroupId: managers.id,
    });
    this.monitoringCidrs.forEach((range, index) => {
      new VpcSecurityGroupIngressRule(this, `manager-metrics-from-monitoring-${index}`, {
        securityGroupId: managers.id,
        description: `Runner metrics scraped from ${range}`,
        ipProtocol: "tcp",
        fromPort: RUNNER_METRICS_PORT,
        toPort: RUNNER_METRICS_PORT,
        cidrIpv4: range,
      });
    });

    // Egress stays open: managers talk to GitLab, package repositories, the plugin registry and AWS APIs;
    // workers pull job images. Terraform removes AWS's default egress rule, so it is declared here.
    for (const [group, who] of [[managers, "managers"], [workers, "workers"]] as const) {
      new VpcSecurityGroupEgressRule(this, `${who}-egress`, {
        securityGroupId: group.id,
        description: "All egress (GitLab, package repositories, plugin registry, AWS APIs, images)",
        ipProtocol: "-1",
        cidrIpv4: ANYWHERE,
      });
    }
    return { managers: managers.id, workers: workers.id };
  }

  private createSsmEndpoints(region: string): void {
    const endpoints = new SecurityGroup(this, "endpoint-security-group", {
      name: this.securityGroupNames.ssmEndpoints,
      description: "SSM interface endpoints: HTTPS from the runner managers only",
      vpcId: this.vpcId,
      tags: this.nameTag("ssm-endpoints"),
    });
    new VpcSecurityGroupIngressRule(this, "endpoints-https-from-managers", {
      securityGroupId: endpoints.id,
      description: "HTTPS from the runner managers",
      ipProtocol: "tcp",
      fromPort: HTTPS_PORT,
      toPort: HTTPS_PORT,
      referencedSecurityGroupId: this.managerSecurityGroupId,
    });
    for (const service of ["ssm", "ssmmessages", "ec2messages"]) {
      new VpcEndpoint(this, `${service}-endpoint`, {
        vpcId: this.vpcId,
        serviceName: endpointServiceName(region, service),
        vpcEndpointType: "Interface",
        privateDnsEnabled: true,
        subnetIds: this.privateSubnetIds,
        securityGroupIds: [endpoints.id],
        tags: this.nameTag(service),
      });
    }
  }
}
