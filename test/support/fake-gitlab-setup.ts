/**
 * The one way a test file gets a GitLab: `const gitlab = useFakeGitLab()` starts a fresh
 * FakeGitLab before each test and stops it after; `gitlab.setup` is cell-1 pointed at it
 * (made on first use, see ./fake-gitlab-model.ts), `gitlab.remodel(change)` a changed one.
 */
import { createServer as createNetServer, type AddressInfo } from "node:net";
import type { RunnerModel } from "../../lib/model/schema";
import { FakeGitLab } from "./fake-gitlab";
import { fakeModel, type FakeModelSetup } from "./fake-gitlab-model";

export interface FakeGitLabFixture {
  /** The running fake of the current test. */
  readonly fake: FakeGitLab;
  /** cell-1 talking to the fake, with a local secret store in a fresh temp dir. */
  readonly setup: FakeModelSetup;
  /** Replaces `setup` with a model changed by `change` (another URL, other shards, ...). */
  remodel(change: (model: RunnerModel) => void): FakeModelSetup;
}

export function useFakeGitLab(): FakeGitLabFixture {
  let fake: FakeGitLab | undefined;
  let setup: FakeModelSetup | undefined;
  beforeEach(async () => {
    fake = new FakeGitLab();
    setup = undefined;
    await fake.start();
  });
  afterEach(async () => {
    await fake?.stop();
    fake = undefined;
  });
  const running = (): FakeGitLab => {
    if (!fake) throw new Error("useFakeGitLab: the fake runs only inside a test (beforeEach, test, afterEach)");
    return fake;
  };
  return {
    get fake() {
      return running();
    },
    get setup() {
      setup ??= fakeModel(running());
      return setup;
    },
    remodel(change) {
      setup = fakeModel(running(), change);
      return setup;
    },
  };
}

/** A port on 127.0.0.1 that nothing listens on: connections to it are refused. */
export async function closedPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
