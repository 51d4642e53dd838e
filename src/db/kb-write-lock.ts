/**
 * What every write to the knowledge base shares: the advisory lock that makes
 * imports, merges and edit groups go one at a time (across replicas), and the
 * channel its commit notifies the replicas on.
 */

// Serialises imports across replicas (any constant, the same everywhere).
export const KB_WRITE_LOCK_ID = 72_707_369;

/** The channel replicas listen on for knowledge-base changes. */
export const KB_CHANGED_CHANNEL = "kubecompat_kb_changed";
