/**
 * What the scheduled refresh reads from each upstream source, and which
 * derivation of kb:derive it hands the copy to: the same sections, compared
 * with the database's knowledge base, as `kb:derive --propose` files.
 */
import path from "node:path";
import type { RefreshSourceConfig, RefreshSourceName } from "../core/refresh-config.js";
import type { EntityName } from "../knowledge/records.js";
import type { Section } from "./derive/compare.js";
import { FEATURE_GATES_DIR } from "./derive/feature-gates.js";
import type { KbReader } from "./kb-derive-files.js";
import {
  DEFAULT_REMOVALS_SINCE,
  apiRemovalsSection,
  containerdSection,
  featureGatesSection,
} from "./kb-derive-sections.js";
import { endoflifeSections, type EndoflifeInput } from "./kb-derive-endoflife.js";
import { kubeadmSections } from "./kb-derive-kubeadm.js";
import { ENDOFLIFE_PRODUCTS } from "./derive/endoflife-products.js";
import { checkoutTip, downloadJson, mirrorRepository } from "./upstream-copies.js";

/** What one source gave: the sections to file, and the upstream revision read (a commit, or the day read). */
export interface SourceReading {
  readonly sections: readonly Section[];
  readonly revision: string;
}

interface Derivation {
  /** The kinds of knowledge the source speaks about (coverage rows' last check). */
  readonly entities: readonly EntityName[];
  read(
    source: RefreshSourceConfig,
    cacheDir: string,
    kb: KbReader,
    signal: AbortSignal,
    today: string,
  ): Promise<SourceReading>;
}

export const DERIVATIONS: Readonly<Record<RefreshSourceName, Derivation>> = {
  "kubernetes-api": {
    entities: ["apiRemovals"],
    async read(source, cacheDir, kb, signal) {
      const { location, commit } = await mirrorRepository(source, cacheDir, signal);
      const section = apiRemovalsSection(
        { repo: location, tags: undefined, since: DEFAULT_REMOVALS_SINCE },
        kb,
      );
      return { sections: [section], revision: section.revision ?? commit };
    },
  },
  containerd: {
    entities: ["runtimeRequirements"],
    async read(source, cacheDir, kb, signal) {
      const { location, commit } = await checkoutTip(source, cacheDir, [], signal);
      const section = containerdSection(path.join(location, "RELEASES.md"), commit, kb);
      return { sections: [section], revision: commit };
    },
  },
  "kubernetes-website": {
    entities: ["featureGates"],
    async read(source, cacheDir, kb, signal) {
      const { location, commit } = await checkoutTip(source, cacheDir, [FEATURE_GATES_DIR], signal);
      return { sections: [featureGatesSection(location, commit, kb)], revision: commit };
    },
  },
  kubernetes: {
    entities: ["addons", "releases"],
    async read(source, cacheDir, kb, signal) {
      const { location, commit } = await mirrorRepository(source, cacheDir, signal, {
        withoutBlobs: true,
      });
      return { sections: kubeadmSections(location, kb), revision: commit };
    },
  },
  endoflife: {
    entities: ["releases", "platforms", "runtimeReleases", "addons"],
    async read(source, _cacheDir, kb, signal, today) {
      // Every product kb:derive reads; one that cannot be fetched fails the source (the message names it).
      const texts: Record<string, EndoflifeInput> = {};
      for (const product of ENDOFLIFE_PRODUCTS) {
        const { text, url } = await downloadJson(source, `${product}.json`, signal);
        texts[product] = { text, name: url, flag: "endoflife.date" };
      }
      return { sections: endoflifeSections(texts, kb), revision: today };
    },
  },
};
