/**
 * After an apply, AWS e-mail subscriptions still waiting for their confirmation click are named, so alarms
 * that reach no one do not go unnoticed. The source of subscriptions is a fake here (no AWS credentials);
 * the AWS CLI source is run against a stand-in `aws` that prints what `aws sns list-subscriptions` prints.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { alarmSubscriptionWarnings, awsCliSubscriptions, type SnsSubscription } from "../../lib/fleet/alarm-subscriptions";

const TOPIC = { region: "eu-west-1", name: "cell-2-runner-alerts" };
const ARN = "arn:aws:sns:eu-west-1:123456789012:cell-2-runner-alerts";
const subscriptions: SnsSubscription[] = [
  { TopicArn: ARN, Protocol: "email", Endpoint: "runner-oncall@example.com", SubscriptionArn: "PendingConfirmation" },
  { TopicArn: ARN, Protocol: "https", Endpoint: "https://alerts.example.com/hooks/aws", SubscriptionArn: `${ARN}:7f0c1d2e-0000-4000-8000-000000000001` },
  { TopicArn: "arn:aws:sns:eu-west-1:123456789012:other-topic", Protocol: "email", Endpoint: "someone@example.com", SubscriptionArn: "PendingConfirmation" },
];

describe("alarm subscriptions pending confirmation", () => {
  it("names each pending subscription of the cell's topic, and nothing of other topics or confirmed ones", async () => {
    const warnings = await alarmSubscriptionWarnings(TOPIC, { listSubscriptions: async () => subscriptions });
    expect(warnings).toEqual([expect.stringContaining("do not reach runner-oncall@example.com (email): the subscription is pending confirmation")]);
  });

  it("says nothing when every subscription is confirmed", async () => {
    expect(await alarmSubscriptionWarnings(TOPIC, { listSubscriptions: async () => subscriptions.slice(1, 2) })).toEqual([]);
  });

  it("warns, without failing, when the subscriptions cannot be listed", async () => {
    const warnings = await alarmSubscriptionWarnings(TOPIC, { listSubscriptions: async () => Promise.reject(new Error("no credentials")) });
    expect(warnings).toEqual([expect.stringMatching(/^could not check the subscriptions of SNS topic cell-2-runner-alerts \(no credentials\)/)]);
  });

  describe("the AWS CLI source", () => {
    let dir: string;
    beforeAll(() => (dir = mkdtempSync(join(tmpdir(), "aws-cli-"))));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const standIn = (script: string) => {
      const file = join(dir, `aws-${Math.random().toString(36).slice(2)}`);
      writeFileSync(file, `#!/bin/sh\n${script}\n`);
      chmodSync(file, 0o755);
      return file;
    };

    it("asks for the region's subscriptions as JSON and reads them", async () => {
      const args = join(dir, "args");
      const aws = standIn(`echo "$@" > ${args}\ncat <<'JSON'\n${JSON.stringify({ Subscriptions: subscriptions })}\nJSON`);
      const listed = await awsCliSubscriptions(process.env, aws).listSubscriptions("eu-west-1");
      expect(listed).toEqual(subscriptions);
      expect(require("node:fs").readFileSync(args, "utf8").trim()).toBe("sns list-subscriptions --region eu-west-1 --output json");
    });

    it("fails with the CLI's last error line when it exits non-zero", async () => {
      const aws = standIn('echo "An error occurred (AccessDenied) when calling the ListSubscriptions operation" >&2\nexit 254');
      await expect(awsCliSubscriptions(process.env, aws).listSubscriptions("eu-west-1")).rejects.toThrow(/exited 254: An error occurred \(AccessDenied\)/);
    });

    it("fails when the CLI is not installed", async () => {
      await expect(awsCliSubscriptions(process.env, join(dir, "no-such-aws")).listSubscriptions("eu-west-1")).rejects.toThrow(/could not be run/);
    });
  });
});
