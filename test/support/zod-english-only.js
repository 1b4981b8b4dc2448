"use strict";
/**
 * What zod's `locales` namespace is to the code under test (jest.config.js moduleNameMapper): English
 * alone, as the command bundles have it (build/bundle-commands.js, zodEnglishOnly). The namespace is
 * zod's messages in ~45 languages, a module each, and jest loads every module again for each test file:
 * ~120 files load zod, and its locales were ~0.8 CPU-s of a run's module evaluation alone. zod
 * configures English itself (v4/classic/schemas.cjs requires locales/en.cjs directly, the same module
 * as below), and nothing here reads `z.locales`.
 */
Object.defineProperty(exports, "__esModule", { value: true });
exports.en = require("zod/v4/locales/en.cjs").default;
