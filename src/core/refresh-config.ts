/**
 * The scheduled refresh's configuration (KB_REFRESH_* and KB_SOURCE_*),
 * parsed with the rest of the environment in config.ts. Each upstream source
 * is a URL, so a mirror inside a company network works: a git repository
 * (https://, ssh://, git@host:path, file:// or a local path) or, for
 * endoflife.date, the base of its API. "off" leaves a source out.
 */
import path from "node:path";
import { z } from "zod";

/** The upstream sources the refresh reads, by name (metrics, logs and source checks use these names). */
export const REFRESH_SOURCE_NAMES = [
  "kubernetes-api",
  "containerd",
  "kubernetes-website",
  "kubernetes",
  "endoflife",
] as const;
export type RefreshSourceName = (typeof REFRESH_SOURCE_NAMES)[number];

export interface RefreshSourceConfig {
  readonly name: RefreshSourceName;
  readonly kind: "git" | "http";
  readonly url: string;
}

export interface RefreshConfig {
  /** How often the service refreshes; null: never (the default). */
  readonly intervalMs: number | null;
  /** The sources left on, in the order they are read. */
  readonly sources: readonly RefreshSourceConfig[];
  /** Where git sources are mirrored between refreshes. */
  readonly cacheDir: string;
  /** Where the refresh says what it filed (a Slack incoming webhook or any endpoint taking {"text": ...}). */
  readonly webhookUrl: string | null;
}

const UNITS_MS: Readonly<Record<string, number>> = {
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** "30m", "24h", "7d" in milliseconds, "off" as null; anything else is a problem that says what to write. */
const interval = z
  .string()
  .transform((value, context) => {
    const text = value.trim().toLowerCase();
    if (text === "off") return null;
    const match = /^(\d{1,4})(m|h|d)$/.exec(text);
    const ms = match === null ? Number.NaN : Number(match[1]) * UNITS_MS[match[2]!]!;
    if (!(ms >= 5 * 60_000 && ms <= 90 * 86_400_000)) {
      context.addIssue({
        code: "custom",
        message:
          'must be "off" or a duration between 5m and 90d such as 30m, 24h or 7d (minutes, hours or days)',
      });
      return z.NEVER;
    }
    return ms;
  })
  .default(null);

const GIT_URL = /^(https?:\/\/|ssh:\/\/|git:\/\/|file:\/\/|[\w.-]+@[\w.-]+:|\/)\S+$/;

function gitSource(upstream: string) {
  return z
    .string()
    .refine((value) => value === "off" || GIT_URL.test(value), {
      message:
        'must be "off" or a git repository URL (https://, ssh://, git@host:path, file:// or an absolute path to a clone)',
    })
    .default(upstream);
}

export const REFRESH_VARIABLES = {
  KB_REFRESH_INTERVAL: interval,
  KB_REFRESH_CACHE_DIR: z.string().min(1).default(".data/sources"),
  KB_REFRESH_WEBHOOK_URL: z
    .string()
    .regex(/^https?:\/\/\S+$/, "must be an http(s) URL, e.g. a Slack incoming webhook")
    .optional(),
  KB_SOURCE_KUBERNETES_API: gitSource("https://github.com/kubernetes/api.git"),
  KB_SOURCE_CONTAINERD: gitSource("https://github.com/containerd/containerd.git"),
  KB_SOURCE_KUBERNETES_WEBSITE: gitSource("https://github.com/kubernetes/website.git"),
  KB_SOURCE_KUBERNETES: gitSource("https://github.com/kubernetes/kubernetes.git"),
  KB_SOURCE_ENDOFLIFE: z
    .string()
    .refine((value) => value === "off" || /^https?:\/\/\S+$/.test(value), {
      message:
        'must be "off" or the http(s) base of endoflife.date\'s API (https://endoflife.date/api)',
    })
    .default("https://endoflife.date/api"),
};

type RefreshVariables = z.output<z.ZodObject<typeof REFRESH_VARIABLES>>;

export function refreshConfigOf(env: RefreshVariables, cwd: string): RefreshConfig {
  const all: RefreshSourceConfig[] = [
    { name: "kubernetes-api", kind: "git", url: env.KB_SOURCE_KUBERNETES_API },
    { name: "containerd", kind: "git", url: env.KB_SOURCE_CONTAINERD },
    { name: "kubernetes-website", kind: "git", url: env.KB_SOURCE_KUBERNETES_WEBSITE },
    { name: "kubernetes", kind: "git", url: env.KB_SOURCE_KUBERNETES },
    { name: "endoflife", kind: "http", url: env.KB_SOURCE_ENDOFLIFE.replace(/\/+$/, "") },
  ];
  const sources = all.filter((source) => source.url !== "off");
  return {
    intervalMs: env.KB_REFRESH_INTERVAL,
    sources,
    cacheDir: path.resolve(cwd, env.KB_REFRESH_CACHE_DIR),
    webhookUrl: env.KB_REFRESH_WEBHOOK_URL ?? null,
  };
}
