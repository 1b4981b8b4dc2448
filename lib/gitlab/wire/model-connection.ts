/**
 * The model's gitlab: settings as the GitLab client takes them: the time limit of one
 * request, the CA bundle (read now, so a missing file fails before any request) and the
 * proxy, and the insecure-http opt-in.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseGoDurationSeconds } from "../../model/duration";
import { INSECURE_HTTP_SETTING } from "../../model/gitlab-url-policy";
import type { RunnerModel } from "../../model/schema";
import type { ConnectionSettings } from "./dispatcher";

export interface ModelConnection {
  readonly attemptTimeoutMs: number;
  readonly connection: ConnectionSettings;
  readonly allowInsecureHttp: boolean;
}

/** `baseDir` resolves a relative gitlab.ca_file. @default process.cwd() */
export function modelConnection(gitlab: RunnerModel["gitlab"], baseDir = process.cwd()): ModelConnection {
  const proxy = gitlab.proxy;
  return {
    attemptTimeoutMs: (parseGoDurationSeconds(gitlab.request_timeout) ?? 30) * 1000,
    connection: {
      caBundle: gitlab.ca_file === undefined ? undefined : readFileSync(resolve(baseDir, gitlab.ca_file), "utf8"),
      proxy: proxy && { https: proxy.https, http: proxy.http ?? proxy.https, noProxy: proxy.no_proxy },
    },
    allowInsecureHttp: gitlab[INSECURE_HTTP_SETTING],
  };
}
