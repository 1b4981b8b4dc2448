/**
 * managers.request_concurrency: a value the model sets (import carries it over from a config.toml)
 * is what each manager's config.toml says; left out, the derived default (one per 10 slots) stays.
 */
import { parse } from "smol-toml";
import { renderConfigToml } from "../../lib/render/manager-files";
import { modelWith } from "../support/models";

const requestConcurrency = (value: number | undefined) => {
  const model = modelWith("cell-2", (draft) => {
    draft.shards[0].managers.concurrent = 60;
    if (value !== undefined) draft.shards[0].managers.request_concurrency = value;
  });
  return (parse(renderConfigToml(model, model.shards[0], 0)) as { runners: Array<{ request_concurrency: number }> }).runners[0].request_concurrency;
};

it("renders the model's request_concurrency, and the derived one when it is left out", () => {
  expect(requestConcurrency(3)).toBe(3);
  expect(requestConcurrency(undefined)).toBe(6);
});
