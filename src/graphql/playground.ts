/**
 * The GraphQL playground: GraphiQL rendered from a local package as one
 * self-contained page (scripts, styles and editor workers inlined), so it
 * works with no internet. Apollo's default landing page loads Apollo Sandbox
 * from a CDN and is disabled. Each tab holds an example of one operation,
 * its first line a comment saying what it shows.
 */

const EXAMPLE_PLAN = `{
  components: [
    { component: "kube-apiserver", version: "1.30.4", instance: "cp-1" }
    { component: "kube-apiserver", version: "1.30.4", instance: "cp-2" }
    { component: "kube-controller-manager", version: "1.30.4" }
    { component: "kubelet", version: "1.27.9", instance: "pool-a" }
    { component: "containerd", version: "1.7.13", instance: "pool-a" }
    { component: "kubelet", version: "1.26.15", instance: "pool-b" }
    { component: "kubectl", version: "1.30.1" }
  ]
}`;

const FINDING_FIELDS = "code severity component instance message sourceUrl";

export const PLAYGROUND_EXAMPLES: ReadonlyArray<{
  readonly title: string;
  readonly query: string;
}> = [
  {
    title: "validateCluster",
    query: `# Is this cluster a supported combination? (Ctrl-Enter or the run button)
query ValidateCluster {
  validateCluster(plan: ${EXAMPLE_PLAN}, profile: "upstream") {
    ok
    kbRevision
    findings { ${FINDING_FIELDS} }
  }
}`,
  },
  {
    title: "planUpgrade",
    query: `# The ordered steps from 1.27 to 1.30: the control plane one minor at a time, the pool only when it must move
query PlanUpgrade {
  planUpgrade(
    current: { components: [
      { component: "etcd", version: "3.5.9" }
      { component: "kube-apiserver", version: "1.27.3" }
      { component: "kube-scheduler", version: "1.27.3" }
      { component: "kubelet", version: "1.26.5", instance: "pool-a" }
      { component: "containerd", version: "1.6.20", instance: "pool-a" }
    ] }
    targetVersion: "1.30"
  ) {
    ok
    steps { order component instance fromVersion toVersion note }
    apiRemovals { apiVersion kind removedIn replacement }
    findings { ${FINDING_FIELDS} }
  }
}`,
  },
  {
    title: "checkRollback",
    query: `# The rollback trap: the pool goes back to 1.28 after the control plane reached 1.30
query CheckRollback {
  checkRollback(
    current: { components: [
      { component: "kube-apiserver", version: "1.30.2" }
      { component: "kubelet", version: "1.29.6", instance: "pool-a" }
    ] }
    component: "kubelet", instance: "pool-a", toVersion: "1.28.9", profile: "strict"
  ) { ok findings { ${FINDING_FIELDS} } }
}`,
  },
  {
    title: "scanManifests",
    query: `# Which of these manifests use APIs that 1.25 no longer serves, and what to migrate to
query ScanManifests {
  scanManifests(targetVersion: "1.25", manifests: """
apiVersion: batch/v1beta1
kind: CronJob
metadata: { name: nightly, namespace: ops }
---
apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata: { name: web }
""") {
    targetVersion
    findings { code severity kind name namespace line replacement message }
  }
}`,
  },
  {
    title: "checkNodePoolUpgrade",
    query: `# A node pool's chart from kubelet 1.29 to 1.30: kubelet flags 1.30 removed or deprecated, and the steps inside the pool
query CheckNodePoolUpgrade {
  checkNodePoolUpgrade(
    controlPlaneVersion: "1.30.4"
    from: {
      name: "pool-b", kubeletVersion: "1.29.6", runtime: "containerd", runtimeVersion: "1.7.13", kubeProxyVersion: "1.29.6", kubeProxyMode: "ipvs"
      kubeletFlags: ["--max-pods=110 --pod-infra-container-image=registry.k8s.io/pause:3.9 --azure-container-registry-config=/etc/kubernetes/azure.json"]
    }
    to: {
      name: "pool-b", kubeletVersion: "1.30.4", runtime: "containerd", runtimeVersion: "1.7.22", kubeProxyVersion: "1.30.4", kubeProxyMode: "ipvs"
      kubeletFlags: ["--max-pods=110 --pod-infra-container-image=registry.k8s.io/pause:3.9 --azure-container-registry-config=/etc/kubernetes/azure.json"]
    }
  ) {
    ok
    status
    pool
    findings { ${FINDING_FIELDS} }
    steps { order action component fromVersion toVersion note }
  }
}`,
  },
  {
    title: "knowledge base",
    query: `# What the answers rest on: the knowledge base's revision, a component and its ports, skew rules, API removals, a release, profiles, links
query KnowledgeBase {
  knowledgeBase { revision newestRelease counts { entity count } }
  component(name: "apiserver") { name aliases ports { port endPort protocol purpose } }
  skewRules(kubernetesVersion: "1.30", profile: "strict") { id component relativeTo maxNewer maxOlder sourceUrl }
  apiRemovals(fromVersion: "1.25", toVersion: "1.29") { apiVersion kind removedIn replacement }
  release(version: "1.30") { version releaseDate endOfLife latestPatch }
  profiles { name extends }
  links { from to protocol minTlsVersion }
}`,
  },
  {
    title: "proposals",
    query: `# The review queue: changes derived from upstream, what each changes and where it was read (approveProposals decides, editor token)
query Proposals {
  proposals(status: OPEN, limit: 20) {
    id action entity key changedFields
    source sourceRevision derivation filedAt
    baseRevision currentRevision
    problems { field message }
    record
  }
}`,
  },
];

/**
 * GraphiQL's tabs are framer-motion drag items held inside the tab list, and
 * framer keeps such an item's offset in proportion to the list whenever the
 * item or the list is resized (while the page lays out, or when the window
 * is). Every tab but the last is left with a stale offset towards the right
 * end, which GraphiQL's own CSS hides only while the tab has no focus
 * (`.graphiql-tab:not(:focus-within) { transform: none !important }`). A
 * mouse press focuses the tab, the offset applies, the tab jumps away from
 * the pointer and the release lands on the list, so the tab never gets its
 * click; the keyboard worked because Enter clicks the focused tab wherever
 * it is drawn. Pinned here: a tab stays where it is laid out, focused or not
 * (a tab dragged to reorder it no longer follows the pointer while dragged).
 */
const TAB_STYLE = "<style>.graphiql-tab { transform: none !important; }</style>";

let page: Promise<string> | undefined;

/**
 * The page, rendered on first use: the renderer carries GraphiQL's whole
 * bundle (about 50 MB once loaded), which an instance serving only API
 * traffic never needs in memory.
 */
export function playgroundPage(): Promise<string> {
  page ??= import("@graphql-yoga/render-graphiql").then(({ renderGraphiQL }) => {
    const html = renderGraphiQL({
      title: "kubecompat GraphQL",
      endpoint: "/graphql",
      // No icon from another host: the page must load with nothing leaving localhost.
      favicon: "data:,",
      defaultQuery: PLAYGROUND_EXAMPLES[0]!.query,
      defaultTabs: PLAYGROUND_EXAMPLES.map((example) => ({ query: example.query })),
    });
    // At the end of the head, after GraphiQL's stylesheet (the bundle's scripts hold a "</head>" of their own).
    return html.replace(
      /<\/head>(\s*<body)/,
      (_match, body: string) => `${TAB_STYLE}</head>${body}`,
    );
  });
  return page;
}
