/**
 * The host side of the stubs (./stubs): their call log, and the answers the test gives them.
 * Everything lives in the container's stub state directory, a host directory bind-mounted at
 * /var/lib/stub, so it is read and written here without entering the container.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

export interface StubCall {
  /** Epoch milliseconds, taken inside the container (same clock as the host). */
  readonly at: number;
  readonly tool: string;
  readonly pid: number;
  readonly event: string;
  readonly args: readonly string[];
}

function unescape(text: string): string {
  return text.replace(/\\([\\tn])/g, (_, c: string) => (c === "t" ? "\t" : c === "n" ? "\n" : "\\"));
}

/** The first 12 hex digits of a token's SHA-256: what the gitlab-runner stub logs instead of a token. */
export function tokenFingerprint(token: string): string {
  return createHash("sha256").update(token).digest("hex").slice(0, 12);
}

export class StubState {
  constructor(readonly dir: string) {}

  /** Every call and signal the stubs recorded, in order. */
  calls(): StubCall[] {
    const file = join(this.dir, "calls.log");
    if (!existsSync(file)) return [];
    return readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => {
        const [at, tool, pid, event, ...args] = line.split("\t");
        return { at: Number(at), tool, pid: Number(pid), event, args: args.map(unescape) };
      });
  }

  callsOf(tool: string, event?: string): StubCall[] {
    return this.calls().filter((call) => call.tool === tool && (event === undefined || call.event === event));
  }

  /** aws calls whose arguments start with `service operation`. */
  awsCalls(service: string, operation: string): StubCall[] {
    return this.callsOf("aws", "call").filter((call) => call.args[0] === service && call.args[1] === operation);
  }

  /** curl calls of a method to URLs that contain `urlPart`. */
  curlCalls(method: string, urlPart: string): StubCall[] {
    return this.callsOf("curl", "call").filter((call) => call.args[0] === method && call.args[1].includes(urlPart));
  }

  write(relativePath: string, content: string): void {
    const file = join(this.dir, relativePath);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
  }

  /** What the curl stub answers to METHOD URL (query string ignored). */
  httpResponse(method: string, url: string, body: string): void {
    const { host, pathname } = new URL(url);
    this.write(join("http", method, host, decodeURIComponent(pathname)), body);
  }

  /** GitLab (POST /runners/verify) accepts `token` as the token of runner `id`. */
  gitlabRunnerToken(token: string, id: number): void {
    this.write(join("gitlab", "tokens", token), `${id}\n`);
  }

  ssmParameter(name: string, value: string): void {
    this.write(join("ssm", name.replace(/^\//, "")), value);
  }

  /**
   * What DescribeAutoScalingGroups answers for group `name` (support/stubs/bin/aws): the group with these
   * instances, in the AWS CLI's documented output shape (awscli/examples/autoscaling/describe-auto-scaling-groups.rst).
   */
  autoscalingGroup(name: string, instances: ReadonlyArray<{ readonly id: string; readonly state: string }>): void {
    const group = {
      AutoScalingGroupName: name,
      MinSize: 1,
      MaxSize: 1,
      DesiredCapacity: 1,
      Instances: instances.map(({ id, state }) => ({ InstanceId: id, AvailabilityZone: "eu-west-1a", LifecycleState: state, HealthStatus: "Healthy", ProtectedFromScaleIn: false })),
    };
    this.write(join("autoscaling", "groups", `${name}.json`), JSON.stringify({ AutoScalingGroups: [group] }));
  }

  /** The instances DescribeAutoScalingGroups answers for group `name` now, with their lifecycle states. */
  autoscalingInstances(name: string): Array<{ id: string; state: string }> {
    const file = join(this.dir, "autoscaling", "groups", `${name}.json`);
    if (!existsSync(file)) return [];
    const answer = JSON.parse(readFileSync(file, "utf8")) as { AutoScalingGroups: Array<{ Instances: Array<{ InstanceId: string; LifecycleState: string }> }> };
    return answer.AutoScalingGroups.flatMap((group) => group.Instances.map((instance) => ({ id: instance.InstanceId, state: instance.LifecycleState })));
  }

  /** How long the gitlab-runner stub's running jobs take to finish after SIGQUIT. */
  jobSeconds(seconds: number): void {
    this.write(join("runner", "job-seconds"), `${seconds}\n`);
  }

  /** What `dpkg --print-architecture` says (an image of another architecture). */
  architecture(name: string): void {
    this.write("architecture", `${name}\n`);
  }
}
