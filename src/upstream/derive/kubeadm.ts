/**
 * kubeadm's version constants in kubernetes/kubernetes cmd/kubeadm/app/constants/constants.go, as
 * they stand at each release tag:
 *   CoreDNSVersion = "v1.11.3"                       (the CoreDNS `kubeadm init` installs)
 *   DefaultEtcdVersion = "3.5.24-0"                  (the etcd it falls back to)
 *   SupportedEtcdVersion = map[uint8]string{ 31: "3.5.24-0", 32: "3.5.24-0", ... }
 * The map is keyed by the Kubernetes minor; backports bump it within a release line, so a minor's
 * value is read both at v1.N.0 and at the newest v1.N.P tag. Pure: git is run elsewhere.
 */
import { DeriveInputError } from "./errors.js";

export const KUBEADM_CONSTANTS = "cmd/kubeadm/app/constants/constants.go";

export const constantsUrl = (commit: string): string =>
  `https://github.com/kubernetes/kubernetes/blob/${commit}/${KUBEADM_CONSTANTS}`;

export interface KubeadmConstants {
  /** "1.11.3" (the tag's "v" dropped, as kb/addons.yaml writes CoreDNS versions); null when the file has none. */
  readonly coreDns: string | null;
  readonly defaultEtcd: string | null;
  /** Kubernetes minor number → etcd image version ("3.5.24-0"). */
  readonly supportedEtcd: ReadonlyMap<number, string>;
}

/** The constants at one release tag. */
export interface KubeadmSnapshot {
  /** "v1.31.3" */
  readonly tag: string;
  readonly minor: number;
  readonly patch: number;
  readonly commit: string;
  readonly constants: KubeadmConstants;
}

/** A minor's two readings: its v1.N.0 tag (null when the clone lacks it) and its newest v1.N.P tag (the same when there is no patch). */
export interface KubeadmMinor {
  readonly minor: string;
  readonly first: KubeadmSnapshot | null;
  readonly newest: KubeadmSnapshot;
}

/** "v1.31.3" → 31 and 3; null for anything else (pre-releases included: kubeadm's constants are judged as released). */
export function parseReleaseTag(name: string): { minor: number; patch: number } | null {
  const match = /^v1\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,3})$/.exec(name);
  return match === null ? null : { minor: Number(match[1]), patch: Number(match[2]) };
}

/** Per minor with a released tag, the v1.N.0 tag and the newest patch tag (names), oldest minor first. */
export function selectReleaseTags(
  names: readonly string[],
): { first: string | null; newest: string }[] {
  const byMinor = new Map<number, { minor: number; patch: number; name: string }[]>();
  for (const name of names) {
    const tag = parseReleaseTag(name);
    if (tag === null) continue;
    byMinor.set(tag.minor, [...(byMinor.get(tag.minor) ?? []), { ...tag, name }]);
  }
  return [...byMinor.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, tags]) => {
      const sorted = tags.sort((a, b) => a.patch - b.patch);
      return {
        first: sorted[0]!.patch === 0 ? sorted[0]!.name : null,
        newest: sorted.at(-1)!.name,
      };
    });
}

/** Go source without its comments (a commented-out map entry is not an entry). */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/[^\n]*/g, "");
}

/** Reads the three constants; `where` names the file and tag in messages. */
export function parseKubeadmConstants(text: string, where: string): KubeadmConstants {
  const source = withoutComments(text);
  const coreDns = /\bCoreDNSVersion\s*=\s*"v?(\d+\.\d+\.\d+)"/.exec(source)?.[1] ?? null;
  const defaultEtcd = /\bDefaultEtcdVersion\s*=\s*"([^"]+)"/.exec(source)?.[1] ?? null;
  const map = /\bSupportedEtcdVersion\s*=\s*map\[uint8\]string\s*\{([^}]*)\}/.exec(source);
  const supportedEtcd = new Map<number, string>();
  for (const entry of map?.[1]?.matchAll(/(\d+)\s*:\s*"([^"]+)"/g) ?? [])
    supportedEtcd.set(Number(entry[1]), entry[2]!);
  if (coreDns === null && defaultEtcd === null && map === null)
    throw new DeriveInputError(
      `--kubernetes: ${where} has none of CoreDNSVersion, DefaultEtcdVersion or SupportedEtcdVersion; is it kubeadm's ${KUBEADM_CONSTANTS}?`,
    );
  return { coreDns, defaultEtcd, supportedEtcd };
}

/** The snapshots grouped per minor, in the order given by selectReleaseTags. */
export function kubeadmMinors(snapshots: readonly KubeadmSnapshot[]): KubeadmMinor[] {
  const byMinor = new Map<number, KubeadmSnapshot[]>();
  for (const snapshot of snapshots)
    byMinor.set(snapshot.minor, [...(byMinor.get(snapshot.minor) ?? []), snapshot]);
  return [...byMinor.entries()]
    .sort(([a], [b]) => a - b)
    .map(([minor, list]) => {
      const sorted = [...list].sort((a, b) => a.patch - b.patch);
      return {
        minor: `1.${minor}`,
        first: sorted[0]!.patch === 0 ? sorted[0]! : null,
        newest: sorted.at(-1)!,
      };
    });
}
