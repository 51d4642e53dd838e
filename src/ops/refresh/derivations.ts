/**
 * What the scheduled refresh reads from each upstream source, and which
 * derivation of kb:derive it hands the copy to: the same sections, compared
 * with the database's knowledge base, as `kb:derive --propose` files.
 */
import path from "node:path";
import type { RefreshSourceConfig, RefreshSourceName } from "../../core/refresh-config.js";
import type { EntityName } from "../../knowledge/records.js";
import type { Section } from "../derive/compare.js";
import { FEATURE_GATES_DIR } from "../derive/feature-gates.js";
import type { KbReader } from "../kb-derive-files.js";
import {
  DEFAULT_REMOVALS_SINCE,
  apiRemovalsSection,
  containerdSection,
  featureGatesSection,
  releasesSection,
} from "../kb-derive-sections.js";
import { checkoutTip, downloadJson, mirrorRepository } from "./upstream.js";

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
  endoflife: {
    entities: ["releases"],
    async read(source, cacheDir, kb, signal, today) {
      const { file } = await downloadJson(source, "kubernetes.json", cacheDir, signal);
      return { sections: [releasesSection(file, kb)], revision: today };
    },
  },
};
