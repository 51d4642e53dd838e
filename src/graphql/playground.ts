/**
 * The GraphQL playground: GraphiQL rendered from a local package as one
 * self-contained page (scripts, styles and editor workers inlined), so it
 * works with no internet. Apollo's default landing page loads Apollo Sandbox
 * from a CDN and is disabled. Each tab holds an example of one operation.
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

export const PLAYGROUND_EXAMPLES: ReadonlyArray<{ readonly title: string; readonly query: string }> = [
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
    query: `query PlanUpgrade {
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
    query: `query ScanManifests {
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
    title: "knowledge base",
    query: `query KnowledgeBase {
  knowledgeBase { revision newestRelease counts { entity count } }
  component(name: "apiserver") { name aliases ports { port endPort protocol purpose } }
  skewRules(kubernetesVersion: "1.30", profile: "strict") { id component relativeTo maxNewer maxOlder sourceUrl }
  apiRemovals(fromVersion: "1.25", toVersion: "1.29") { apiVersion kind removedIn replacement }
  release(version: "1.30") { version releaseDate endOfLife latestPatch }
  profiles { name extends }
  links { from to protocol minTlsVersion }
}`,
  },
];

let page: Promise<string> | undefined;

/**
 * The page, rendered on first use: the renderer carries GraphiQL's whole
 * bundle (about 50 MB once loaded), which an instance serving only API
 * traffic never needs in memory.
 */
export function playgroundPage(): Promise<string> {
  page ??= import("@graphql-yoga/render-graphiql").then(({ renderGraphiQL }) =>
    renderGraphiQL({
      title: "kubecompat GraphQL",
      endpoint: "/graphql",
      // No icon from another host: the page must load with nothing leaving localhost.
      favicon: "data:,",
      defaultQuery: PLAYGROUND_EXAMPLES[0]!.query,
      defaultTabs: PLAYGROUND_EXAMPLES.map((example) => ({ query: example.query })),
    }),
  );
  return page;
}
