/** Knowledge-base records for tests that create them at run time. */

/** A recommendations record (the simplest kind to create: it references only the kubelet). */
export function recommendation(id: string, text = "Some advice.") {
  return {
    id,
    title: `Advice ${id}`,
    components: ["kubelet"],
    phase: "ANY",
    appliesFrom: null,
    appliesUntil: null,
    text,
    sourceUrl: "https://kubernetes.io/docs/setup/",
    notes: null,
  };
}
