/**
 * What the cells of one run share per GitLab and token: the pacer (./request-pacer.ts;
 * GitLab's limit is per user, not per cell) and what was learnt of its runners
 * (./runner-census.ts): listings and runner details. Cells on one instance then list its
 * runners once per run, and read each runner at most once, whichever cell asks first,
 * instead of each cell reading the runners of the others that share its tags.
 *
 * One traffic is one run: a command builds one, and cells run in parallel share it. Runs
 * one after the other (a re-run) build their own, so what they see is fresh.
 */
import type { RetryClock } from "./retry";
import { addTallies, RequestPacer, type PaceSettings, type RequestTally } from "./request-pacer";
import type { GitLabContact } from "./requester";
import { newRunnerKnowledge, type RunnerKnowledge } from "./runner-census";

export class GitLabTraffic {
  private readonly pacers = new Map<string, RequestPacer>();
  private readonly knowledge = new Map<string, RunnerKnowledge>();
  private readonly contacts = new Map<string, GitLabContact>();

  constructor(
    readonly settings: PaceSettings,
    private readonly clock: Pick<RetryClock, "now" | "sleep">,
  ) {}

  pacerFor(url: string, token: string): RequestPacer {
    return remembered(this.pacers, keyOf(url, token), () => new RequestPacer(this.settings, this.clock));
  }

  /** Listings and runner details of the GitLab, as this run learnt them. */
  runnersOf(url: string, token: string): RunnerKnowledge {
    return remembered(this.knowledge, keyOf(url, token), newRunnerKnowledge);
  }

  /** Whether the GitLab at `url` has answered any cell of this run: a refusal after that is a restart, retried, not a wrong URL. */
  contactWith(url: string): GitLabContact {
    return remembered(this.contacts, url.replace(/\/+$/, "").toLowerCase(), () => ({ answered: false }));
  }

  tally(): RequestTally {
    return addTallies([...this.pacers.values()].map((pacer) => pacer.tally()));
  }
}

/** The token stays in memory, as the client holds it anyway; it is never printed. */
function keyOf(url: string, token: string): string {
  return `${url.replace(/\/+$/, "").toLowerCase()}\n${token}`;
}

function remembered<T>(map: Map<string, T>, key: string, make: () => T): T {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}
