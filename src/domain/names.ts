/**
 * "Did you mean …?" for names people type: instance names in plans, command
 * words and keys in the CLI. A typo must never hide a problem silently.
 */

/** Levenshtein distance. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The candidate within `maxDistance` edits of `word` (case and - _ . ignored), the closest first; null when none is close. */
export function nearestName(
  word: string,
  candidates: readonly string[],
  maxDistance = 2,
): string | null {
  const plain = (text: string): string => text.toLowerCase().replace(/[-_.]/g, "");
  let best: { candidate: string; distance: number } | null = null;
  for (const candidate of candidates) {
    const distance =
      plain(candidate) === plain(word)
        ? 0
        : editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance <= maxDistance && (best === null || distance < best.distance))
      best = { candidate, distance };
  }
  return best?.candidate ?? null;
}
