/**
 * GitLab's client, loaded when the first one is built: gitbeaker and undici (initialized on first use
 * in the bundles, build/bundle-commands.js) cost a command a good part of its start-up, and --help, a
 * model refused as invalid or a run without a token never send a request. Keep this require() inside the function.
 */
import type * as ClientModule from "./client";

export function gitlabClientModule(): typeof ClientModule {
  return require("./client") as typeof ClientModule;
}
