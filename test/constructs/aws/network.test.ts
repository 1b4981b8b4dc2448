import { InternetGateway } from "@cdktf/provider-aws/lib/internet-gateway";
import { Subnet } from "@cdktf/provider-aws/lib/subnet";
import { Vpc } from "@cdktf/provider-aws/lib/vpc";
import { VpcEndpoint } from "@cdktf/provider-aws/lib/vpc-endpoint";
import { VpcSecurityGroupEgressRule } from "@cdktf/provider-aws/lib/vpc-security-group-egress-rule";
import { VpcSecurityGroupIngressRule } from "@cdktf/provider-aws/lib/vpc-security-group-ingress-rule";
import { Network, type NetworkProps } from "../../../constructs/aws/network";
import { RUNNER_METRICS_PORT } from "../../../lib/contract/fleet-contract";
import { cidrContains } from "../../../lib/network/cidr";
import { awsTestStack, expectNoTokenShapedStrings, referenceTo, resourcesOf, synthJson, type Json } from "./support";

const ZONES = ["eu-west-1a", "eu-west-1b", "eu-west-1c"];

function synthNetwork(props: Partial<NetworkProps> = {}) {
  const stack = awsTestStack();
  const network = new Network(stack, "network", {
    namePrefix: "cell-9",
    securityGroupNames: { managers: "cell-9-runner-managers", workers: "cell-9-runner-workers", ssmEndpoints: "cell-9-ssm-endpoints" },
    region: "eu-west-1",
    availabilityZones: ZONES,
    vpcCidr: "10.30.0.0/16",
    monitoringCidrs: ["10.8.0.0/16"],
    ...props,
  });
  return { network, ...synthJson(stack) };
}

function securityGroupRef(json: Json, nameSuffix: string): string {
  return referenceTo(json, "aws_security_group", "id", (group) => String(group.name).endsWith(nameSuffix));
}

function routesOf(json: Json): Json[] {
  return Object.values(resourcesOf(json, "aws_route"));
}

describe("Network", () => {
  describe("GIVEN a VPC to create", () => {
    test("THEN the VPC has DNS support and hostnames on the given range", () => {
      const { text } = synthNetwork();
      expect(text).toHaveResourceWithProperties(Vpc, {
        cidr_block: "10.30.0.0/16",
        enable_dns_support: true,
        enable_dns_hostnames: true,
      });
    });

    test("THEN each zone has a private and a public subnet, inside the VPC and not overlapping", () => {
      const { json } = synthNetwork();
      const subnets = Object.values(resourcesOf(json, "aws_subnet"));
      expect(subnets).toHaveLength(ZONES.length * 2);
      for (const zone of ZONES) expect(subnets.filter((subnet) => subnet.availability_zone === zone)).toHaveLength(2);
      const ranges = subnets.map((subnet) => subnet.cidr_block as string);
      for (const range of ranges) expect(cidrContains("10.30.0.0/16", range)).toBe(true);
      ranges.forEach((a, i) => ranges.forEach((b, j) => i !== j && expect(cidrContains(a, b)).toBe(false)));
      expect(subnets.every((subnet) => subnet.map_public_ip_on_launch === false)).toBe(true);
    });

    test("THEN one NAT gateway serves every zone by default", () => {
      const { json, network } = synthNetwork();
      expect(network.natGatewayPerAvailabilityZone).toBe(false);
      const natGateways = Object.keys(resourcesOf(json, "aws_nat_gateway"));
      expect(natGateways).toHaveLength(1);
      const natRoutes = routesOf(json).filter((route) => route.nat_gateway_id);
      expect(natRoutes).toHaveLength(ZONES.length);
      expect(new Set(natRoutes.map((route) => route.nat_gateway_id))).toEqual(new Set([`\${aws_nat_gateway.${natGateways[0]}.id}`]));
      expect(natRoutes.every((route) => route.destination_cidr_block === "0.0.0.0/0")).toBe(true);
    });

    test("WHEN natGatewayPerAvailabilityZone THEN each zone's private route goes to its own NAT gateway", () => {
      const { json } = synthNetwork({ natGatewayPerAvailabilityZone: true });
      expect(Object.keys(resourcesOf(json, "aws_nat_gateway"))).toHaveLength(ZONES.length);
      const natRoutes = routesOf(json).filter((route) => route.nat_gateway_id);
      expect(new Set(natRoutes.map((route) => route.nat_gateway_id)).size).toBe(ZONES.length);
    });

    test("WHEN natGateway is false THEN there is no NAT gateway and no default route from the private subnets", () => {
      const { json } = synthNetwork({ natGateway: false });
      expect(resourcesOf(json, "aws_nat_gateway")).toEqual({});
      expect(routesOf(json).filter((route) => route.nat_gateway_id)).toEqual([]);
    });

    test("THEN the public subnets route to an internet gateway", () => {
      const { text, json } = synthNetwork();
      expect(text).toHaveResource(InternetGateway);
      const igw = Object.keys(resourcesOf(json, "aws_internet_gateway"))[0];
      expect(routesOf(json)).toContainEqual(expect.objectContaining({ gateway_id: `\${aws_internet_gateway.${igw}.id}`, destination_cidr_block: "0.0.0.0/0" }));
    });

    test("THEN S3 is reached through a free gateway endpoint on the private route tables, and SSM endpoints are off", () => {
      const { text, json } = synthNetwork();
      expect(text).toHaveResourceWithProperties(VpcEndpoint, { service_name: "com.amazonaws.eu-west-1.s3", vpc_endpoint_type: "Gateway" });
      const endpoints = Object.values(resourcesOf(json, "aws_vpc_endpoint"));
      expect(endpoints).toHaveLength(1);
      expect(endpoints[0].route_table_ids).toHaveLength(ZONES.length);
    });

    test("WHEN ssmInterfaceEndpoints THEN ssm, ssmmessages and ec2messages endpoints accept HTTPS from the managers only", () => {
      const { text, json } = synthNetwork({ ssmInterfaceEndpoints: true });
      for (const service of ["ssm", "ssmmessages", "ec2messages"]) {
        expect(text).toHaveResourceWithProperties(VpcEndpoint, {
          service_name: `com.amazonaws.eu-west-1.${service}`,
          vpc_endpoint_type: "Interface",
          private_dns_enabled: true,
        });
      }
      expect(text).toHaveResourceWithProperties(VpcSecurityGroupIngressRule, {
        security_group_id: securityGroupRef(json, "-ssm-endpoints"),
        from_port: 443,
        to_port: 443,
        referenced_security_group_id: securityGroupRef(json, "-runner-managers"),
      });
    });

    test("THEN the synthesized JSON has no token-shaped strings", () => {
      expectNoTokenShapedStrings(synthNetwork({ ssmInterfaceEndpoints: true, natGatewayPerAvailabilityZone: true }).text);
    });
  });

  describe("security groups", () => {
    test("THEN workers accept SSH from the managers' security group and nothing else", () => {
      const { json } = synthNetwork();
      const workers = securityGroupRef(json, "-runner-workers");
      const workerIngress = Object.values(resourcesOf(json, "aws_vpc_security_group_ingress_rule")).filter(
        (rule) => rule.security_group_id === workers,
      );
      expect(workerIngress).toEqual([
        expect.objectContaining({
          ip_protocol: "tcp",
          from_port: 22,
          to_port: 22,
          referenced_security_group_id: securityGroupRef(json, "-runner-managers"),
        }),
      ]);
      expect(workerIngress[0].cidr_ipv4).toBeUndefined();
    });

    test("THEN managers accept the metrics port from each monitoring range only", () => {
      const { json } = synthNetwork({ monitoringCidrs: ["10.8.0.0/16", "192.168.10.0/24"] });
      const managers = securityGroupRef(json, "-runner-managers");
      const managerIngress = Object.values(resourcesOf(json, "aws_vpc_security_group_ingress_rule")).filter(
        (rule) => rule.security_group_id === managers,
      );
      expect(managerIngress.map((rule) => rule.cidr_ipv4).sort()).toEqual(["10.8.0.0/16", "192.168.10.0/24"]);
      for (const rule of managerIngress) {
        expect(rule).toMatchObject({ ip_protocol: "tcp", from_port: RUNNER_METRICS_PORT, to_port: RUNNER_METRICS_PORT });
      }
    });

    test("WHEN there are no monitoring ranges THEN managers accept no ingress at all", () => {
      const { json } = synthNetwork({ monitoringCidrs: [] });
      const managers = securityGroupRef(json, "-runner-managers");
      expect(Object.values(resourcesOf(json, "aws_vpc_security_group_ingress_rule")).filter((rule) => rule.security_group_id === managers)).toEqual([]);
    });

    test("THEN no ingress rule anywhere is open to 0.0.0.0/0, and no group has inline rules", () => {
      const { json } = synthNetwork({ ssmInterfaceEndpoints: true });
      const ingress = Object.values(resourcesOf(json, "aws_vpc_security_group_ingress_rule"));
      expect(ingress.length).toBeGreaterThan(0);
      for (const rule of ingress) expect(rule.cidr_ipv4).not.toBe("0.0.0.0/0");
      for (const group of Object.values(resourcesOf(json, "aws_security_group"))) expect(group.ingress).toBeUndefined();
    });

    test("THEN managers and workers may send anything out (GitLab, package repositories, the plugin registry)", () => {
      const { text, json } = synthNetwork();
      for (const suffix of ["-runner-managers", "-runner-workers"]) {
        expect(text).toHaveResourceWithProperties(VpcSecurityGroupEgressRule, {
          security_group_id: securityGroupRef(json, suffix),
          ip_protocol: "-1",
          cidr_ipv4: "0.0.0.0/0",
        });
      }
    });
  });

  describe("GIVEN an existing VPC", () => {
    const existing = { vpcId: "vpc-0123456789abcdef0", privateSubnetIds: ["subnet-0123456789abcdef0", "subnet-0123456789abcdef1"] };

    test("THEN no network is created, the security groups go into that VPC and its subnets are used", () => {
      const { text, json, network } = synthNetwork({ vpcCidr: undefined, existing });
      expect(text).not.toHaveResource(Vpc);
      expect(text).not.toHaveResource(Subnet);
      expect(resourcesOf(json, "aws_nat_gateway")).toEqual({});
      expect(resourcesOf(json, "aws_vpc_endpoint")).toEqual({});
      const groups = Object.values(resourcesOf(json, "aws_security_group"));
      expect(groups).toHaveLength(2);
      for (const group of groups) expect(group.vpc_id).toBe(existing.vpcId);
      expect(network.privateSubnetIds).toEqual(existing.privateSubnetIds);
      expect(network.publicSubnetIds).toEqual([]);
      expect(network.createsVpc).toBe(false);
    });
  });

  describe("invariants", () => {
    test("fails when a monitoring CIDR is 0.0.0.0/0", () => {
      expect(() => synthNetwork({ monitoringCidrs: ["0.0.0.0/0"] })).toThrow(
        'network: monitoringCidrs[0] is "0.0.0.0/0"; expected a source range narrower than the whole internet (0.0.0.0/0).',
      );
    });

    test("fails when a monitoring CIDR overlaps the VPC, where the workers run job code", () => {
      expect(() => synthNetwork({ monitoringCidrs: ["10.8.0.0/16", "10.30.4.0/24"] })).toThrow(
        /monitoringCidrs\[1\] is "10\.30\.4\.0\/24"; expected a range outside the VPC 10\.30\.0\.0\/16, where the workers are/,
      );
      expect(() => synthNetwork({ monitoringCidrs: ["10.0.0.0/8"] })).toThrow(/monitoringCidrs\[0\] is "10\.0\.0\.0\/8"/);
    });

    test("fails when a monitoring CIDR is not a CIDR block", () => {
      expect(() => synthNetwork({ monitoringCidrs: ["10.8.0.1/16"] })).toThrow(/monitoringCidrs\[0\] is "10.8.0.1\/16"; expected an IPv4 CIDR block/);
    });

    test("fails when the VPC range is wider than AWS allows", () => {
      expect(() => synthNetwork({ vpcCidr: "10.0.0.0/8" })).toThrow(/vpcCidr is "10.0.0.0\/8"; expected a prefix between \/16 and \/25/);
    });

    test("fails when the VPC range leaves no room for the subnets", () => {
      expect(() => synthNetwork({ vpcCidr: "10.0.0.0/27" })).toThrow(/vpcCidr is "10.0.0.0\/27"/);
    });

    test("fails when an existing VPC id is not a VPC id", () => {
      expect(() =>
        synthNetwork({ vpcCidr: undefined, existing: { vpcId: "my-vpc", privateSubnetIds: ["subnet-0123456789abcdef0"] } }),
      ).toThrow('network: existing.vpcId is "my-vpc"; expected a VPC id such as vpc-0123456789abcdef0.');
    });

    test("fails when an existing VPC comes with a range to create", () => {
      expect(() =>
        synthNetwork({ existing: { vpcId: "vpc-0123456789abcdef0", privateSubnetIds: ["subnet-0123456789abcdef0"] } }),
      ).toThrow(/vpcCidr is "10.30.0.0\/16"; expected no vpcCidr together with `existing`/);
    });

    test("fails when there are no availability zones", () => {
      expect(() => synthNetwork({ availabilityZones: [] })).toThrow("network: availabilityZones is []; expected at least one availability zone.");
    });

    test("fails when there is neither a range for a new VPC nor an existing VPC", () => {
      expect(() => synthNetwork({ vpcCidr: undefined })).toThrow("network: vpcCidr is undefined; expected the range of the VPC to create");
    });

    test("fails when a security group name is one AWS refuses, or two groups share a name", () => {
      const names = { managers: "sg-managers", workers: "cell-9-runner-workers", ssmEndpoints: "cell-9-ssm-endpoints" };
      expect(() => synthNetwork({ securityGroupNames: names })).toThrow(/network: securityGroupNames\.managers is "sg-managers"; expected a security group name that does not/);
      expect(() => synthNetwork({ securityGroupNames: { ...names, managers: names.workers } })).toThrow(
        /network: securityGroupNames is .*"cell-9-runner-workers" appears more than once/,
      );
    });
  });
});
