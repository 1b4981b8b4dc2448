export * from "./schema";
export { loadModelFile, parseModel, type LoadedModel } from "./load";
export * from "./names";
