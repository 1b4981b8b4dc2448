/**
 * Stops a listing that never ends. gitbeaker follows Link rel="next" for as long as there is
 * one (it has no loop check, and its maxPages would cut the listing short silently, which
 * could make onboarding think a runner is gone). The requester shows every page answer to
 * this guard: a next page that was already read, or more pages than MAX_PAGES, fails the call.
 *
 * A page is known by its path and its sorted query. Each page request that was announced as
 * some listing's next page carries on that listing's trail; any other starts a new trail.
 */
import { PaginationLoopError } from "./wire-failures";

/** 1000 pages of 100 items: far more runners or running jobs than one cell ever holds. */
export const MAX_PAGES = 1000;

interface Trail {
  readonly seen: ReadonlySet<string>;
}

export class PaginationGuard {
  /** Trails waiting for their next page, by that page's key. */
  private readonly awaited = new Map<string, Trail>();

  constructor(private readonly maxPages = MAX_PAGES) {}

  /** Called with each successful page answer; throws PaginationLoopError on a loop or past the cap. */
  check(requested: URL, linkHeader: string | null | undefined): void {
    const key = pageKey(requested);
    const trail = this.awaited.get(key);
    this.awaited.delete(key);
    const next = nextLink(linkHeader);
    if (next === undefined) return;
    const nextKey = pageKey(new URL(next, requested));
    const seen = new Set(trail?.seen ?? []);
    seen.add(key);
    if (seen.has(nextKey)) throw new PaginationLoopError(requested.pathname, "loops: its next page is one already read");
    if (seen.size >= this.maxPages) throw new PaginationLoopError(requested.pathname, `has more than ${this.maxPages} pages (the cap)`);
    this.awaited.set(nextKey, { seen });
  }
}

function pageKey(url: URL): string {
  const query = new URLSearchParams(url.search);
  // GitLab's first page is page 1 whether or not the first request says so.
  if (!query.has("page")) query.set("page", "1");
  query.sort();
  return `${url.pathname}?${query.toString()}`;
}

/** The target of rel="next", as gitbeaker reads it (core's parseLinkHeader). */
function nextLink(header: string | null | undefined): string | undefined {
  if (!header) return undefined;
  for (const match of header.matchAll(/<([^>]+)>; rel="([^"]+)"/g)) if (match[2] === "next") return match[1];
  return undefined;
}
