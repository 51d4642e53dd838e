/**
 * Generated questions about clusters, for the property and differential tests: every input field of a cluster
 * (control-plane instances of an HA control plane at one or two minors, controllers, node pools with their
 * kubelet, kube-proxy, runtime, cgroup version, failCgroupV1 and feature gates, etcd members, kubectl,
 * add-ons) and of a question (platform, profile, asOf, the target, including aliases, `1.30.x`, vendor
 * builds and lost zeros). Values are drawn from the shipped kb/ (release minors, feature gates, add-on
 * versions, runtime lines) so that most questions reach the rules rather than the parser.
 *
 * The seed is fixed in `npm test`; KUBECOMPAT_PROPERTY_RUNS raises the number of runs, and
 * KUBECOMPAT_PROPERTY_SEED replays another seed (fast-check prints the seed and path of a failure).
 */
import fc from "fast-check";
import { addonFits, candidateVersions } from "../../src/domain/addons.js";
import { stageAt } from "../../src/domain/feature-gates.js";
import type { ComponentVersionInput } from "../../src/domain/cluster-plan.js";
import type { KbSnapshot } from "../../src/knowledge/snapshot.js";

// eslint-disable-next-line no-restricted-syntax -- the tests' own knobs, not the service's configuration
export const PROPERTY_SEED = Number(process.env.KUBECOMPAT_PROPERTY_SEED ?? 20261204);

/** Runs of a property: `base` in npm test, KUBECOMPAT_PROPERTY_RUNS times more when asked. */
export function propertyRuns(base: number): number {
  // eslint-disable-next-line no-restricted-syntax -- the tests' own knobs, not the service's configuration
  const scale = Number(process.env.KUBECOMPAT_PROPERTY_RUNS ?? 1);
  return Math.max(1, Math.round(base * (Number.isFinite(scale) && scale > 0 ? scale : 1)));
}

export interface ClusterQuestion {
  readonly components: ComponentVersionInput[];
  readonly profile?: string;
  readonly asOf?: string;
  readonly platform?: string;
  /** For plans: the target as typed. */
  readonly target: string;
}

const CONTAINERD = [
  "1.5.18",
  "1.6.20",
  "1.6.36",
  "1.7.13",
  "1.7.20",
  "1.7.28",
  "2.0.0",
  "2.0.6",
  "2.1.3",
  "2.2.0",
  "2.3.0",
  "2.4.0",
];
const ETCD = [
  "3.3.27",
  "3.4.20",
  "3.4.30",
  "3.5.9",
  "3.5.15",
  "3.5.24",
  "3.5.32",
  "3.6.5",
  "3.6.8",
  "3.6.11",
  "3.7.0",
];
const DOCKER = ["20.10.24", "24.0.7"];
const ADDONS = ["cert-manager", "ingress-nginx", "cluster-autoscaler", "coredns", "metrics-server"];

/** A day from mid 2023 to the end of 2027, as YYYY-MM-DD. */
const day = fc
  .date({
    min: new Date("2023-06-01T00:00:00Z"),
    max: new Date("2027-12-31T00:00:00Z"),
    noInvalidDate: true,
  })
  .map((date) => date.toISOString().slice(0, 10));

/** A Kubernetes version of `minor` as people write it: 1.30, v1.30.4, 1.30.x, a vendor build on a platform. */
function written(minor: string, platform: string | undefined): fc.Arbitrary<string> {
  const forms: Array<fc.Arbitrary<string>> = [
    fc.constant(minor),
    fc.nat({ max: 20 }).map((patch) => `${minor}.${patch}`),
    fc.nat({ max: 20 }).map((patch) => `v${minor}.${patch}`),
    fc.constant(`${minor}.x`),
  ];
  if (platform === "eks" || platform === undefined)
    forms.push(fc.nat({ max: 20 }).map((patch) => `v${minor}.${patch}-eks-3cfe9b1`));
  if (platform === "gke")
    forms.push(fc.nat({ max: 20 }).map((patch) => `v${minor}.${patch}-gke.1200`));
  return fc.oneof(...forms);
}

/** Every feature gate the knowledge base knows, weighted to those that change on the way (removed, locked, deprecated). */
function gateNames(snapshot: KbSnapshot): string[] {
  const changing = snapshot.featureGates.filter(
    (gate) =>
      gate.removedIn !== null ||
      gate.stages.some((stage) => stage.locked || stage.stage === "DEPRECATED"),
  );
  return [
    ...changing.slice(0, 60).map((gate) => gate.name),
    ...snapshot.featureGates.slice(0, 20).map((gate) => gate.name),
    "NoSuchGateAtAll",
  ];
}

/**
 * Settings a component of `minor` starts with: gates it has at that minor, set to a value it takes (a locked one
 * to its value); with `againstLocks`, locked ones set the other way too (what a component refuses).
 */
function liveGateSettings(snapshot: KbSnapshot, minor: number, againstLocks = false): string[] {
  const at = `1.${minor}`;
  const changing = snapshot.featureGates.filter(
    (gate) =>
      gate.removedIn !== null ||
      gate.stages.some((stage) => stage.locked || stage.stage === "DEPRECATED"),
  );
  return changing.flatMap((gate) => {
    const stage = stageAt(gate, at);
    if (
      stage === undefined ||
      (gate.removedIn !== null && Number(gate.removedIn.split(".")[1]) <= minor)
    )
      return [];
    return stage.locked && !againstLocks
      ? [`${gate.name}=${stage.defaultValue}`]
      : [`${gate.name}=${stage.defaultValue}`, `${gate.name}=${!stage.defaultValue}`];
  });
}

/**
 * A question about a cluster. Seven in ten clusters are plausible (a supported combination today, as a team
 * would run it: pools within the skew policy, gates the kubelet has, add-on releases that fit, etcd members on
 * one version), so that plans run their course through the rules; the others are drawn wild, field by field,
 * so that refusals and blocked plans are reached too.
 */
export function clusterQuestion(
  snapshot: KbSnapshot,
  options: { readonly typos?: boolean } = {},
): fc.Arbitrary<ClusterQuestion> {
  return fc.oneof(
    { weight: 7, arbitrary: cluster(snapshot, true, options) },
    { weight: 3, arbitrary: cluster(snapshot, false, options) },
  );
}

function cluster(
  snapshot: KbSnapshot,
  plausible: boolean,
  options: { readonly typos?: boolean },
): fc.Arbitrary<ClusterQuestion> {
  const minors = snapshot.releases.map((release) => Number(release.version.split(".")[1]));
  const oldest = Math.min(...minors);
  const newest = Math.max(...minors);
  const gates = gateNames(snapshot);
  const addons = ADDONS.map((name) => snapshot.addons.find((addon) => addon.name === name)).filter(
    (addon) => addon !== undefined,
  );
  const pick = <T>(tame: readonly T[], wild: readonly T[]): fc.Arbitrary<T> =>
    fc.constantFrom(...(plausible ? tame : wild));
  return fc
    .record({
      // Mostly minors the knowledge base knows; now and then one older or newer than it.
      minor: plausible
        ? fc.integer({ min: Math.max(oldest + 3, newest - 10), max: newest })
        : fc.oneof(
            {
              weight: 8,
              arbitrary: fc.integer({ min: Math.max(oldest, newest - 12), max: newest }),
            },
            { weight: 1, arbitrary: fc.integer({ min: oldest - 6, max: newest + 2 }) },
          ),
      platform: fc.constantFrom(undefined, undefined, "eks", "gke", "aks", "upstream"),
      profile: fc.constantFrom(undefined, "upstream", "strict"),
      asOf: fc.option(day, { nil: undefined }),
    })
    .chain(({ minor, platform, profile, asOf }) => {
      const at = (offset: number): string => `1.${Math.max(1, minor + offset)}`;
      const version = (offset: number) =>
        written(at(offset), platform === "upstream" ? "upstream" : platform);
      const apiservers = fc.oneof(
        version(0).map((text) => [{ component: "kube-apiserver", version: text }]),
        fc.tuple(fc.integer({ min: 2, max: 3 }), pick([0], [0, 0, -1, -2])).chain(([count, lag]) =>
          fc
            .tuple(
              ...Array.from({ length: count }, (_, index) =>
                version(index === count - 1 ? lag : 0),
              ),
            )
            .map((texts) =>
              texts.map((text, index) => ({
                component: "kube-apiserver",
                instance: `cp-${index + 1}`,
                version: text,
              })),
            ),
        ),
      );
      // Controllers follow the apiservers; wild ones drift either way.
      const controllers = fc
        .subarray(["kube-controller-manager", "kube-scheduler"])
        .chain((names) =>
          fc.tuple(
            ...names.map((name) =>
              pick([0], [0, 0, -1, 1]).chain((offset) =>
                version(offset).map((text) => ({ component: name, version: text })),
              ),
            ),
          ),
        );
      const pool = (name: string) =>
        fc
          .record({
            lag: pick(profile === "strict" ? [0, 0, 1] : [0, 0, 1, 2, 3], [0, 0, 1, 2, 3, 4, -1]),
            proxy: pick(["none", "same", "same"], ["none", "same", "behind"]),
            runtime: pick(
              ["none", "containerd", "containerd", "cri-o", "docker+shim"],
              ["none", "containerd", "containerd", "cri-o", "docker", "docker+shim"],
            ),
            containerd: fc.constantFrom(
              ...CONTAINERD.filter((text) => !plausible || !text.startsWith("1.5")),
            ),
            crioLag: pick([0], [0, 0, 1, -1]),
            docker: fc.constantFrom(...DOCKER),
            cgroupVersion: fc.constantFrom(undefined, undefined, "v1", "v2"),
            failCgroupV1: fc.constantFrom(undefined, undefined, true, false),
          })
          .chain((p) =>
            fc
              .tuple(
                version(-p.lag),
                version(-p.lag - (p.proxy === "behind" ? 1 : 0)),
                // Gates the kubelet has at its own minor (plausible), or any the knowledge base knows, either way (wild).
                plausible
                  ? fc.subarray(liveGateSettings(snapshot, minor - p.lag), { maxLength: 2 })
                  : fc.oneof(
                      fc.subarray(liveGateSettings(snapshot, minor - p.lag, true), {
                        maxLength: 2,
                      }),
                      fc
                        .subarray(gates, { maxLength: 2 })
                        .chain((names) =>
                          fc.tuple(
                            ...names.map((gate) => fc.boolean().map((value) => `${gate}=${value}`)),
                          ),
                        ),
                    ),
              )
              .map(([kubeletVersion, proxyVersion, settings]) => {
                // One value per gate: a component refuses a gate named twice.
                const gateList = settings.filter(
                  (setting, index) =>
                    settings.findIndex((other) => other.split("=")[0] === setting.split("=")[0]) ===
                    index,
                );
                // A plausible pool on cgroup v1 from 1.35 says failCgroupV1: false, as it must to start.
                const v1Needs = plausible && p.cgroupVersion === "v1" && minor - p.lag >= 35;
                const entries: ComponentVersionInput[] = [
                  {
                    component: "kubelet",
                    instance: name,
                    version: kubeletVersion,
                    ...(p.cgroupVersion === undefined ? {} : { cgroupVersion: p.cgroupVersion }),
                    ...(v1Needs
                      ? { failCgroupV1: false }
                      : p.failCgroupV1 === undefined
                        ? {}
                        : { failCgroupV1: p.failCgroupV1 }),
                    ...(gateList.length === 0 ? {} : { featureGates: gateList.join(",") }),
                  },
                ];
                if (p.proxy !== "none")
                  entries.push({ component: "kube-proxy", instance: name, version: proxyVersion });
                if (p.runtime === "containerd")
                  entries.push({ component: "containerd", instance: name, version: p.containerd });
                if (p.runtime === "cri-o")
                  entries.push({
                    component: "cri-o",
                    instance: name,
                    version: `1.${Math.max(1, minor - p.lag + p.crioLag)}.3`,
                  });
                if (p.runtime.startsWith("docker"))
                  entries.push({ component: "docker-engine", instance: name, version: p.docker });
                if (p.runtime === "docker+shim")
                  entries.push({ component: "cri-dockerd", instance: name, version: "0.3.9" });
                return entries;
              }),
          );
      const pools = fc
        .integer({ min: 0, max: 3 })
        .chain((count) =>
          fc
            .tuple(...Array.from({ length: count }, (_, index) => pool(`pool-${"abc"[index]}`)))
            .map((all) => all.flat()),
        );
      const etcdVersions = plausible
        ? ETCD.filter((text) => (minor < 31 ? !text.startsWith("3.3") : text >= "3.5.11"))
        : ETCD;
      const etcd = fc.oneof(
        fc.constant([] as ComponentVersionInput[]),
        fc.constantFrom(...etcdVersions).map((text) => [{ component: "etcd", version: text }]),
        fc
          .tuple(fc.integer({ min: 1, max: 4 }), fc.constantFrom(...etcdVersions))
          .chain(([count, shared]) =>
            fc
              .tuple(
                ...Array.from({ length: count }, () =>
                  plausible ? fc.constant(shared) : fc.constantFrom(...ETCD),
                ),
              )
              .map((texts) =>
                texts.map((text, index) => ({
                  component: "etcd",
                  instance: `cp-${index + 1}`,
                  version: text,
                })),
              ),
          ),
      );
      const kubectl = fc.option(
        version(0).map((text) => [{ component: "kubectl", version: text }]),
        { nil: [] as ComponentVersionInput[] },
      );
      const newestNumber = newest;
      const addonEntries = fc.subarray(addons, { maxLength: 2 }).chain((chosen) =>
        fc.tuple(
          ...chosen.map((addon) => {
            const all = candidateVersions(addon);
            const fitting = all.filter((candidate) =>
              addonFits(addon, candidate, minor, newestNumber),
            );
            const choices = plausible && fitting.length > 0 ? fitting : all;
            return fc
              .constantFrom(...choices.map((candidate) => candidate.raw))
              .map((text) => ({ component: addon.name, version: text }));
          }),
        ),
      );
      const target = fc.oneof(
        {
          weight: 6,
          arbitrary: fc
            .integer({ min: 0, max: 6 })
            .map((ahead) => `1.${Math.min(newest, Math.max(1, minor + ahead))}`),
        },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            "latest",
            "oldest-supported",
            `1.${Math.min(newest, minor + 1)}.x`,
            `v1.${Math.min(newest, minor + 1)}.3`,
            `1.${newest + 1}`,
          ),
        },
        ...(options.typos === true
          ? [{ weight: 1, arbitrary: fc.constantFrom("1.2", "1.3") }]
          : []),
      );
      // With typos, now and then a control-plane version loses its zero as an unquoted 1.30 in YAML does.
      const lostZero =
        options.typos === true
          ? fc.oneof(
              { weight: 7, arbitrary: fc.constant(undefined) },
              { weight: 1, arbitrary: fc.constantFrom("1.2", "1.3") },
            )
          : fc.constant(undefined);
      return fc
        .tuple(apiservers, controllers, pools, etcd, kubectl, addonEntries, target, lostZero)
        .map(([a, c, p, e, k, addon, goal, typo]) => ({
          components: [
            ...e,
            ...(typo === undefined ? a : [{ ...a[0]!, version: typo }, ...a.slice(1)]),
            ...c,
            ...p,
            ...k,
            ...addon,
          ],
          target: goal,
          ...(profile === undefined ? {} : { profile }),
          ...(asOf === undefined ? {} : { asOf }),
          ...(platform === undefined ? {} : { platform }),
        }));
    });
}

/** The platform a question is judged on: the one named, else the one its versions show (as the service recognises it). */
export function platformOf(snapshot: KbSnapshot, question: ClusterQuestion): string | undefined {
  if (question.platform !== undefined) return question.platform;
  const found = snapshot.platforms.find(
    (platform) =>
      platform.versionPattern !== null &&
      question.components.some((entry) =>
        new RegExp(platform.versionPattern!).test(entry.version.trim()),
      ),
  );
  return found?.name;
}

/** A node pool before and after an upgrade, under a control plane, with every field of a node-pool spec. */
export interface NodePoolQuestion {
  readonly controlPlaneVersion: string;
  readonly from: Record<string, string | string[]>;
  readonly to: Record<string, string | string[]>;
  readonly profile?: string;
  readonly asOf?: string;
  readonly platform?: string;
}

const KUBELET_FLAGS = [
  "--max-pods=110",
  "--container-runtime=remote",
  "--network-plugin=cni",
  "--pod-infra-container-image=registry.k8s.io/pause:3.9",
  "--feature-gates=InPlacePodVerticalScaling=true",
  "--fail-cgroupv1=false",
  "--no-such-flag=1",
];
const KUBELET_CONFIGS = [
  "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nfailCgroupV1: false\n",
  "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: 110\nfeatureGates:\n  InPlacePodVerticalScaling: true\n",
  "apiVersion: kubelet.config.k8s.io/v1alpha1\nkind: KubeletConfiguration\n",
];

export function nodePoolQuestion(
  snapshot: KbSnapshot,
  options: { readonly chatWords?: boolean } = {},
): fc.Arbitrary<NodePoolQuestion> {
  const minors = snapshot.releases.map((release) => Number(release.version.split(".")[1]));
  const newest = Math.max(...minors);
  // Mostly a pool a team would run (fields that fit its minor and OS), now and then one drawn wild.
  const mostly = <T>(tame: fc.Arbitrary<T>, wild: fc.Arbitrary<T>): fc.Arbitrary<T> =>
    fc.oneof({ weight: 4, arbitrary: tame }, { weight: 1, arbitrary: wild });
  return fc
    .record({
      minor: fc.integer({ min: newest - 10, max: newest }),
      lag: fc.constantFrom(0, 1, 1, 2, 3),
      step: mostly(fc.constantFrom(0, 1, 1, 2), fc.constantFrom(3, 4)),
      // The OS and the kube-proxy modes it has (Windows: kernelspace), or any mode on either (wild).
      node: mostly<{ os: string | undefined; modes: [string | undefined, string | undefined] }>(
        fc.oneof(
          fc.record({
            os: fc.constantFrom(undefined, "linux"),
            modes: fc.tuple(
              fc.constantFrom(undefined, "iptables", "ipvs"),
              fc.constantFrom(undefined, "iptables", "nftables"),
            ),
          }),
          fc.record({
            os: fc.constant("windows"),
            modes: fc.tuple(
              fc.constantFrom(undefined, "kernelspace"),
              fc.constantFrom(undefined, "kernelspace"),
            ),
          }),
        ),
        fc.record({
          os: fc.constantFrom(undefined, "linux", "windows"),
          modes: fc.tuple(
            fc.constantFrom("kernelspace", "ipvs", "userspace"),
            fc.constantFrom("kernelspace", "nftables", "userspace"),
          ),
        }),
      ),
      proxy: fc.boolean(),
      runtime: mostly(
        fc.constantFrom(undefined, "containerd", "containerd", "cri-o"),
        fc.constant("docker-engine"),
      ),
      runtimeVersions: fc.tuple(
        fc.constantFrom(...CONTAINERD.filter((text) => text >= "1.7")),
        fc.constantFrom(...CONTAINERD.filter((text) => text >= "1.7")),
      ),
      flags: mostly(
        fc.subarray(KUBELET_FLAGS.slice(0, 1).concat(["--node-ip=10.0.12.7"]), { maxLength: 2 }),
        fc.subarray(KUBELET_FLAGS, { maxLength: 3 }),
      ),
      config:
        options.chatWords === true
          ? fc.constant(undefined)
          : fc.option(fc.constantFrom(...KUBELET_CONFIGS), { nil: undefined }),
      chart: fc.option(
        mostly(fc.constant("open"), fc.constantFrom(">=1.27.0-0 <1.33.0-0", "~1.31.0")),
        { nil: undefined },
      ),
      cgroupVersion: fc.constantFrom(undefined, "v1", "v2"),
      profile: fc.constantFrom(undefined, "upstream", "strict"),
      platform: fc.constantFrom(undefined, "eks", "aks", "upstream"),
      asOf: fc.option(day, { nil: undefined }),
      controlPlane: fc.oneof(
        { weight: 10, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.constantFrom("1.3", "latest") },
      ),
    })
    .map((q) => {
      const at = (minor: number) => `1.${minor}.${(minor * 7) % 13}`;
      const kubeletFrom = q.minor - q.lag;
      const kubeletTo = Math.min(q.minor + (q.step > 2 ? 1 : 0), kubeletFrom + q.step);
      const runtimeVersion = (index: 0 | 1, kubelet: number) =>
        q.runtime === "containerd"
          ? q.runtimeVersions[index]
          : q.runtime === "cri-o"
            ? `1.${kubelet}.2`
            : "24.0.7";
      const chart = q.chart === "open" ? `>=1.${kubeletFrom}.0-0` : q.chart;
      const side = (
        kubelet: number,
        mode: string | undefined,
        index: 0 | 1,
      ): Record<string, string | string[]> => ({
        name: "pool-a",
        kubeletVersion: at(kubelet),
        ...(q.proxy ? { kubeProxyVersion: at(kubelet) } : {}),
        ...(mode === undefined ? {} : { kubeProxyMode: mode }),
        ...(q.node.os === undefined ? {} : { os: q.node.os }),
        ...(q.runtime === undefined
          ? {}
          : { runtime: q.runtime, runtimeVersion: runtimeVersion(index, kubelet) }),
        ...(q.flags.length === 0 ? {} : { kubeletFlags: q.flags }),
        ...(q.config === undefined ? {} : { kubeletConfig: q.config }),
        ...(chart === undefined ? {} : { chartKubeVersion: chart }),
        ...(q.cgroupVersion === undefined ? {} : { cgroupVersion: q.cgroupVersion }),
      });
      return {
        controlPlaneVersion: q.controlPlane ?? `1.${q.minor}`,
        from: side(kubeletFrom, q.node.modes[0], 0),
        to: side(kubeletTo, q.node.modes[1], 1),
        ...(q.profile === undefined ? {} : { profile: q.profile }),
        ...(q.asOf === undefined ? {} : { asOf: q.asOf }),
        ...(q.platform === undefined ? {} : { platform: q.platform }),
      };
    });
}
