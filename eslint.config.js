// Lint configuration: typescript-eslint's recommended type-aware rules.
import fs from "node:fs";
import js from "@eslint/js";
import tseslint from "typescript-eslint";

// The layers of src/ (layers.json): a folder may import only the folders it lists; test/layering.test.ts
// checks the same table and refuses cycles between folders.
const { layers } = JSON.parse(fs.readFileSync(`${import.meta.dirname}/layers.json`, "utf8"));
const PRISMA = {
  group: ["**/db/generated/*", "@prisma/client", "@prisma/adapter-pg"],
  message: "only src/db/ talks to Prisma",
};
const HTTP_FRAMEWORKS = [
  "express",
  "express-*",
  "@apollo/*",
  "@as-integrations/*",
  "helmet",
  "body-parser",
  "prom-client",
];
const folders = Object.keys(layers).filter((folder) => folder !== "(root)");
const layerRules = folders.map((folder) => {
  const forbidden = folders.filter((other) => other !== folder && !layers[folder].includes(other));
  const patterns = forbidden.map((other) => ({
    group: [`../${other}/*`, `../../${other}/*`, `../${other}/**`, `../../${other}/**`],
    message: `src/${folder}/ may not import src/${other}/ (layers.json: ${folder} imports ${layers[folder].join(", ") || "nothing"})`,
  }));
  if (!layers[folder].includes("(root)"))
    patterns.push({
      group: ["../*.js", "../../*.js"],
      message: `src/${folder}/ may not import the composition files at the root of src/`,
    });
  // Below the faces, nothing knows HTTP: statuses, bodies and frameworks are src/http/'s and the faces'.
  if (!layers[folder].includes("http") && folder !== "http")
    patterns.push({
      group: HTTP_FRAMEWORKS,
      message: `src/${folder}/ may not use an HTTP framework: that is src/http/'s and the faces'`,
    });
  return {
    files: [`src/${folder}/**/*.ts`],
    ignores: ["src/db/generated/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: folder === "db" ? patterns : [PRISMA, ...patterns] },
      ],
    },
  };
});

export default tseslint.config(
  {
    ignores: [
      "node_modules/",
      "dist/",
      ".data/",
      "src/db/generated/",
      "src/graphql/generated/",
      "coverage/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: [
            "eslint.config.js",
            "scripts/*.mjs",
            "bin/*.js",
            "test/fixtures/kubectl-replay/*.mjs",
          ],
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" },
      ],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "no-restricted-syntax": [
        "error",
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: "read configuration through src/core/config.ts",
        },
      ],
      "no-restricted-imports": ["error", { patterns: [PRISMA] }],
    },
  },
  ...layerRules,
  // Files and functions a reader can hold: generated code aside.
  {
    files: ["src/**/*.ts"],
    ignores: ["src/db/generated/**", "src/graphql/generated/**"],
    rules: {
      "max-lines": ["error", { max: 500, skipBlankLines: false, skipComments: false }],
      "max-lines-per-function": [
        "error",
        { max: 100, skipBlankLines: false, skipComments: false, IIFEs: true },
      ],
    },
  },
  {
    files: ["test/**/*.ts"],
    rules: { "no-restricted-imports": "off" },
  },
  {
    files: ["src/core/config.ts", "scripts/**", "bench/**", "prisma.config.ts"],
    rules: { "no-restricted-syntax": "off" },
  },
  {
    files: ["test/**/*.ts"],
    rules: {
      "@typescript-eslint/no-non-null-assertion": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-floating-promises": "off",
    },
  },
  {
    files: ["**/*.js", "**/*.mjs"],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: { process: "readonly", console: "readonly" } },
  },
);
