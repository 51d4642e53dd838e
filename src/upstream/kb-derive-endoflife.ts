/**
 * kb:derive's endoflife.date sections: Kubernetes itself (kb/releases.yaml), the managed platforms
 * (kb/platforms.yaml), the runtimes' release lines (kb/runtime-releases.yaml) and the add-ons with a
 * Kubernetes range (kb/addons.yaml), from the API's JSON of each product (v0 or v1, endoflife.ts).
 *
 * endoflifeSections takes the JSON texts already in hand ({product → text}), so a scheduled refresh
 * that fetched them calls it directly; readEndoflifeInputs reads them from the files the flags name
 * (--endoflife, --endoflife-product <product>=<file>, --endoflife-dir <dir>).
 */
import fs from "node:fs";
import path from "node:path";
import type { Section } from "./derive/compare.js";
import { compareAddonProducts } from "./derive/compare-addon-products.js";
import { comparePlatformReleases } from "./derive/compare-platform-releases.js";
import { compareReleases } from "./derive/compare-releases.js";
import { compareRuntimeReleases } from "./derive/compare-runtime-releases.js";
import {
  parseEndOfLifeJson,
  parseEndOfLifeProduct,
  type EndOfLifeProduct,
} from "./derive/endoflife.js";
import {
  ADDON_PRODUCTS,
  ENDOFLIFE_PRODUCTS,
  PLATFORM_PRODUCTS,
  RUNTIME_PRODUCTS,
} from "./derive/endoflife-products.js";
import { DeriveInputError } from "./derive/errors.js";
import { schemaFields } from "./derive/kb-entity.js";
import { displayPath, readText, statOrFail, type KbReader } from "./kb-derive-files.js";

/** One product's JSON, with what names it in messages (a file, or the URL it was fetched from) and the flag that gave it. */
export interface EndoflifeInput {
  readonly text: string;
  readonly name: string;
  readonly flag: string;
}

const apiUrl = (product: string): string => `https://endoflife.date/api/${product}.json`;

function knownProduct(product: string, flag: string): void {
  if (!ENDOFLIFE_PRODUCTS.includes(product))
    throw new DeriveInputError(
      `${flag}: kb:derive does not read the endoflife.date product "${product}"; it reads ${ENDOFLIFE_PRODUCTS.join(", ")}`,
    );
}

function parseProduct(product: string, input: EndoflifeInput): EndOfLifeProduct {
  const parsed = parseEndOfLifeProduct(input.text, input.name, input.flag);
  if (parsed.product !== null && parsed.product !== product)
    throw new DeriveInputError(
      `${input.flag}: ${input.name} is endoflife.date's ${parsed.product} (its result.name), given as ${product}`,
    );
  return { product, name: input.name, cycles: parsed.cycles, warnings: parsed.warnings };
}

const described = (products: readonly EndOfLifeProduct[]): string =>
  products
    .map((product) => `${product.product} (${product.name}, ${product.cycles.length} cycles)`)
    .join(", ");

/**
 * One section per kind the products speak about, in a fixed order (releases, platforms, runtime
 * releases, add-ons). `texts`: product → its JSON text (named by its API URL) or an EndoflifeInput.
 */
export function endoflifeSections(
  texts: Readonly<Record<string, string | EndoflifeInput>>,
  kb: KbReader,
): Section[] {
  const inputs = Object.entries(texts).map(([product, value]) => {
    const input =
      typeof value === "string"
        ? { text: value, name: apiUrl(product), flag: "endoflife.date" }
        : value;
    knownProduct(product, input.flag);
    return [product, input] as const;
  });
  const sections: Section[] = [];
  const kubernetes = inputs.find(([product]) => product === "kubernetes")?.[1];
  if (kubernetes !== undefined) {
    const parsed = parseEndOfLifeJson(kubernetes.text, kubernetes.name, kubernetes.flag);
    const { records, file } = kb("releases");
    sections.push(
      compareReleases({
        kb: records,
        cycles: parsed.cycles,
        fields: schemaFields("releases"),
        file,
        from: `endoflife.date kubernetes.json (${kubernetes.name}, ${parsed.cycles.length} cycles)`,
        warnings: parsed.warnings,
      }),
    );
  }
  const of = (group: Readonly<Record<string, unknown>>): EndOfLifeProduct[] =>
    inputs
      .filter(([product]) => product in group)
      .map(([product, input]) => parseProduct(product, input));
  const platforms = of(PLATFORM_PRODUCTS);
  if (platforms.length > 0) {
    const { records, file } = kb("platforms");
    sections.push(
      comparePlatformReleases({
        kb: records,
        products: platforms,
        fields: schemaFields("platforms"),
        file,
        from: `endoflife.date ${described(platforms)}`,
      }),
    );
  }
  const runtimes = of(RUNTIME_PRODUCTS);
  if (runtimes.length > 0) {
    const { records, file } = kb("runtimeReleases");
    sections.push(
      compareRuntimeReleases({
        kb: records,
        products: runtimes,
        fields: schemaFields("runtimeReleases"),
        file,
        from: `endoflife.date ${described(runtimes)}`,
      }),
    );
  }
  const addons = of(ADDON_PRODUCTS);
  if (addons.length > 0) {
    const { records, file } = kb("addons");
    sections.push(
      compareAddonProducts({
        kb: records,
        products: addons,
        fields: schemaFields("addons"),
        file,
        from: `endoflife.date ${described(addons)}`,
      }),
    );
  }
  return sections;
}

const DIR_HINT =
  "give a directory of <product>.json files saved from https://endoflife.date/api/<product>.json";

/** The files the flags name, read: product → its text; a product given twice is refused. */
export function readEndoflifeInputs(flags: {
  readonly endoflife?: string | undefined;
  readonly products?: readonly string[] | undefined;
  readonly directory?: string | undefined;
}): Record<string, EndoflifeInput> {
  const inputs: Record<string, EndoflifeInput> = {};
  const add = (product: string, file: string, flag: string, hint: string): void => {
    knownProduct(product, flag);
    if (product in inputs)
      throw new DeriveInputError(
        `${flag}: endoflife.date's ${product} is given twice (also by ${inputs[product]!.flag}: ${inputs[product]!.name}); give it once`,
      );
    const location = path.resolve(file);
    inputs[product] = { text: readText(flag, location, hint), name: displayPath(location), flag };
  };
  if (flags.endoflife !== undefined)
    add(
      "kubernetes",
      flags.endoflife,
      "--endoflife",
      `download ${apiUrl("kubernetes")} and give its path`,
    );
  for (const pair of flags.products ?? []) {
    const match = /^([a-z0-9][a-z0-9-]*)=(.+)$/.exec(pair);
    if (match === null)
      throw new DeriveInputError(
        `--endoflife-product: "${pair}" is not <product>=<file>, e.g. amazon-eks=amazon-eks.json`,
      );
    add(
      match[1]!,
      match[2]!,
      "--endoflife-product",
      `download ${apiUrl(match[1]!)} and give its path`,
    );
  }
  if (flags.directory !== undefined) {
    const directory = path.resolve(flags.directory);
    statOrFail("--endoflife-dir", directory, "directory", DIR_HINT);
    const files = fs
      .readdirSync(directory)
      .filter((name) => name.endsWith(".json"))
      .sort();
    if (files.length === 0)
      throw new DeriveInputError(
        `--endoflife-dir: ${displayPath(directory)} holds no .json file; ${DIR_HINT}`,
      );
    for (const name of files)
      add(name.slice(0, -".json".length), path.join(directory, name), "--endoflife-dir", DIR_HINT);
  }
  return inputs;
}
