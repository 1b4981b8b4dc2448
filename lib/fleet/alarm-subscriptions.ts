/**
 * AWS alarms that reach no one: an SNS e-mail subscription stays "PendingConfirmation" until someone opens
 * the link SNS mails, and the AWS provider cannot confirm it (registry.terraform.io/providers/hashicorp/aws/
 * latest/docs/resources/sns_topic_subscription: "email ... unsupported: the endpoint needs to be authorized").
 * After an apply, provision lists the alert topic's subscriptions and warns about those still pending.
 *
 * The listing goes through a small interface, so the toolkit (and its tests) runs without AWS credentials;
 * the real one calls the AWS CLI (`aws sns list-subscriptions`, which pages through every result itself).
 */
import { spawn } from "node:child_process";

export interface SnsSubscription {
  readonly TopicArn: string;
  readonly Protocol: string;
  readonly Endpoint: string;
  /** "PendingConfirmation" until the endpoint confirms (ListSubscriptions API reference). */
  readonly SubscriptionArn: string;
}

export interface SnsSubscriptionSource {
  listSubscriptions(region: string): Promise<readonly SnsSubscription[]>;
}

export const PENDING_CONFIRMATION = "PendingConfirmation";

/** What provision prints for one cell: nothing when every subscription of the topic is confirmed. */
export async function alarmSubscriptionWarnings(
  topic: { readonly region: string; readonly name: string },
  source: SnsSubscriptionSource,
): Promise<string[]> {
  let subscriptions: readonly SnsSubscription[];
  try {
    subscriptions = await source.listSubscriptions(topic.region);
  } catch (error) {
    return [`could not check the subscriptions of SNS topic ${topic.name} (${(error as Error).message}): confirm that each alert e-mail was confirmed`];
  }
  const pending = subscriptions.filter((entry) => topicNameOf(entry.TopicArn) === topic.name && entry.SubscriptionArn === PENDING_CONFIRMATION);
  return pending.map(
    (entry) =>
      `alarms of SNS topic ${topic.name} do not reach ${entry.Endpoint} (${entry.Protocol}): the subscription is pending confirmation; open the link AWS mailed there, or name a webhook or an existing topic in monitoring.notifications`,
  );
}

function topicNameOf(arn: string): string {
  return arn.split(":").pop() ?? "";
}

/** The AWS CLI, with the caller's credentials and region settings. */
export function awsCliSubscriptions(env: NodeJS.ProcessEnv = process.env, executable = "aws"): SnsSubscriptionSource {
  return {
    listSubscriptions: (region) =>
      new Promise((resolvePromise, reject) => {
        const child = spawn(executable, ["sns", "list-subscriptions", "--region", region, "--output", "json"], { env, stdio: ["ignore", "pipe", "pipe"] });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (chunk) => (stdout += chunk));
        child.stderr.on("data", (chunk) => (stderr += chunk));
        child.on("error", (error) => reject(new Error(`${executable} could not be run: ${error.message}`)));
        child.on("close", (code) => {
          if (code !== 0) return reject(new Error(`${executable} sns list-subscriptions exited ${code}: ${stderr.trim().split("\n").pop() ?? ""}`));
          try {
            resolvePromise((JSON.parse(stdout) as { Subscriptions?: SnsSubscription[] }).Subscriptions ?? []);
          } catch {
            reject(new Error(`${executable} sns list-subscriptions printed no JSON`));
          }
        });
      }),
  };
}
