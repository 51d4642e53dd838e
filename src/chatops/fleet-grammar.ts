/**
 * The words of the fleet: `fleet [env=ENV] [owner=OWNER] [label=K=V]`,
 * `fleet NAME` (or `fleet show NAME`), `fleet events [NAME]`, `fleet waivers`,
 * `fleet register NAME env=ENV owner=OWNER [labels=k=v,...] [platform=eks]`
 * with components as `check` takes them (or kubectl's outputs pasted after
 * the first line), `fleet waive CODE cluster=NAME|label=K=V until=DAY
 * reason="..."` and `fleet unwaive ID`; `fleet subscribe URL [slack] [env=A,B]
 * [owner=A,B] [labels=k=v,...] [min=warning]`, `fleet subscriptions`,
 * `fleet unsubscribe ID`, `fleet deliveries [dead|pending|delivered]` and
 * `fleet replay ID`. Only the shape is read here: the
 * values are checked by the fleet's zod schemas, as REST checks them, so a
 * bad name or day gets REST's message (fleet-answers.ts).
 */
import type { FleetCommand, ParseResult } from "./chat-command.js";
import { pastedKubectl, takeComponents } from "./component-grammar.js";
import { Problem, quote, tokenize } from "./words.js";

/** The command's first line after `fleet` (a ``` opens the paste), and what follows it. */
const FLEET = /^\s*(?:(?:@?kubecompat|<@\w+>|\/\S+)\s+)?fleet(?=[\s`]|$)([^\n`]*)([\s\S]*)$/i;

/**
 * `labels=team=payments,region=eu`: read from the raw line, because words are split at commas. Quoted
 * values (`labels="a=b, c=d"`) work too.
 */
const LABELS = /(^|\s)labels\s*=\s*("[^"]*"|\u201C[^\u201D]*\u201D|'[^']*'|\S+)/gi;

/**
 * `env=prod,staging` and `owner=a,b` of a subscription: read from the raw line, as labels= is, because
 * words are split at commas.
 */
const LISTED =
  /(^|\s)(env|envs|environments?|owners?)\s*=\s*("[^"]*"|\u201C[^\u201D]*\u201D|'[^']*'|\S+)/gi;

/** `fleet subscribe …`: its line is read raw, since a URL is not split into words (a comma, a quote). */
const SUBSCRIBE = /^\s*subscribe(?=\s|$)(.*)$/i;

/** Slack may send a link as `<https://…>` or `<https://…|label>` (https://docs.slack.dev/messaging/formatting-message-text#linking-urls). */
const SLACK_LINK = /^<([^|>]+)(?:\|[^>]*)?>$/;

type Kind = FleetCommand["kind"];

/** The option words each command takes, by what a person may type. */
const LIST_KEYS = {
  env: "environment",
  environment: "environment",
  owner: "owner",
  label: "label",
};
const REGISTER_KEYS = {
  env: "environment",
  environment: "environment",
  owner: "owner",
  label: "label",
  platform: "platform",
  on: "platform",
  profile: "profile",
  policy: "profile",
};
const WAIVE_KEYS = {
  cluster: "cluster",
  label: "label",
  until: "until",
  expires: "until",
  expireson: "until",
  reason: "reason",
  owner: "owner",
};

/**
 * Takes `key=value` options named in `keys` out of the words; a word whose key is not one of them is left
 * for the command (a component is `name=version` too). `label` may be given more than once.
 */
function takeKeyed<K extends string>(
  words: readonly string[],
  kind: Kind,
  keys: Readonly<Record<string, K>>,
): { rest: string[]; values: Partial<Record<K, string>>; labels: string[] } {
  const values: Partial<Record<K, string>> = {};
  const labels: string[] = [];
  const rest: string[] = [];
  for (const word of words) {
    const equals = word.indexOf("=");
    const key = equals > 0 ? word.slice(0, equals).toLowerCase() : "";
    const field = Object.hasOwn(keys, key) ? keys[key] : undefined;
    if (field === undefined) {
      rest.push(word);
      continue;
    }
    const value = word.slice(equals + 1);
    if (value === "") throw new Problem(`${key}= needs a value`, kind);
    if (field === "label") labels.push(value);
    else if (values[field] !== undefined) throw new Problem(`${key} is given twice`, kind);
    else values[field] = value;
  }
  return { rest, values, labels };
}

/** `team=payments` pairs as the labels object REST takes; a key given twice would lose a value unseen. */
function labelsOf(pairs: readonly string[], kind: Kind): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    if (at <= 0)
      throw new Problem(`label ${quote(pair)} is not key=value, e.g. team=payments`, kind);
    const key = pair.slice(0, at);
    if (Object.hasOwn(labels, key))
      throw new Problem(`label key ${quote(key)} is given twice; give each key once`, kind);
    labels[key] = pair.slice(at + 1);
  }
  return labels;
}

function noMore(words: readonly string[], kind: Kind, what: string): void {
  if (words.length > 0)
    throw new Problem(`I do not understand ${quote(words.join(" "))} ${what}`, kind);
}

function parseList(words: readonly string[]): FleetCommand {
  const { rest, values, labels } = takeKeyed(words, "fleet", LIST_KEYS);
  noMore(rest, "fleet", "in the fleet's list (it takes env=, owner= and label=)");
  if (labels.length > 1) throw new Problem("the list takes one label=key=value", "fleet");
  return {
    kind: "fleet",
    ...(values.environment === undefined ? {} : { environment: values.environment }),
    ...(values.owner === undefined ? {} : { owner: values.owner }),
    ...(labels[0] === undefined ? {} : { label: labels[0] }),
  };
}

function parseRegister(words: readonly string[], labelGroups: readonly string[], paste: string) {
  const [name, ...args] = words;
  if (name === undefined || name.includes("="))
    throw new Problem(
      "give the cluster's name first: fleet register NAME env=ENV owner=OWNER …",
      "fleet-register",
    );
  const { rest, values, labels } = takeKeyed(args, "fleet-register", REGISTER_KEYS);
  const pairs = [...labelGroups.flatMap((group) => group.split(",")), ...labels]
    .map((pair) => pair.trim())
    .filter((pair) => pair !== "");
  const components = takeComponents(rest, "fleet-register");
  let kubectl: { version?: string; nodes?: string } | undefined;
  if (paste.trim() !== "") {
    kubectl = pastedKubectl(paste);
    if (kubectl === undefined)
      throw new Problem(
        "paste the output of `kubectl version` and/or `kubectl get nodes` after the first line (or in a ``` block)",
        "fleet-register",
      );
  }
  if (components.length === 0 && kubectl === undefined)
    throw new Problem(
      "give the cluster's state: its components as check takes them (kube-apiserver=1.32 kubelet@pool-a=1.31), or paste `kubectl version` and `kubectl get nodes` after the first line",
      "fleet-register",
    );
  return {
    kind: "fleet-register" as const,
    name,
    ...(values.environment === undefined ? {} : { environment: values.environment }),
    ...(values.owner === undefined ? {} : { owner: values.owner }),
    labels: labelsOf(pairs, "fleet-register"),
    ...(values.platform === undefined ? {} : { platform: values.platform }),
    ...(values.profile === undefined ? {} : { profile: values.profile }),
    components,
    ...(kubectl === undefined ? {} : { kubectl }),
  };
}

/** `fleet waive CODE cluster=NAME until=DAY reason="..."`; words after the options are the reason too. */
function parseWaive(words: readonly string[]): FleetCommand {
  const [code, ...args] = words;
  if (code === undefined || code.includes("="))
    throw new Problem(
      "give the finding's code first, e.g. fleet waive PLATFORM_EXTENDED_SUPPORT cluster=NAME …",
      "fleet-waive",
    );
  const { rest, values, labels } = takeKeyed(args, "fleet-waive", WAIVE_KEYS);
  const unknown = rest.find((word) => word.indexOf("=") > 0);
  if (unknown !== undefined)
    throw new Problem(
      `I do not know the option ${quote(unknown)}; a waiver takes cluster= or label=, until=, reason= and owner=`,
      "fleet-waive",
    );
  if (labels.length > 1) throw new Problem("a waiver takes one label=key=value", "fleet-waive");
  const reason = [values.reason, ...rest].filter((part) => part !== undefined).join(" ");
  return {
    kind: "fleet-waive",
    code,
    ...(values.cluster === undefined ? {} : { cluster: values.cluster }),
    ...(labels[0] === undefined ? {} : { label: labels[0] }),
    ...(values.until === undefined ? {} : { until: values.until }),
    ...(reason === "" ? {} : { reason }),
    ...(values.owner === undefined ? {} : { owner: values.owner }),
  };
}

/** The one id a command takes (`7` or `#7`), as the list named in `listedBy` shows it. */
function idOf(words: readonly string[], kind: Kind, what: string, listedBy: string): number {
  const [word, ...extra] = words;
  if (word === undefined)
    throw new Problem(`give the ${what}'s id (\`${listedBy}\` lists them)`, kind);
  noMore(extra, kind, `after the ${what}'s id`);
  const digits = word.startsWith("#") ? word.slice(1) : word;
  if (!/^[1-9]\d{0,8}$/.test(digits))
    throw new Problem(
      `${quote(word)} is not a ${what} id (a positive whole number, as \`${listedBy}\` lists them)`,
      kind,
    );
  return Number(digits);
}

/** The option words of a subscription besides env=, owner= and labels= (taken from the raw line). */
const SUBSCRIBE_KEYS = {
  min: "minSeverity",
  minseverity: "minSeverity",
  "min-severity": "minSeverity",
  severity: "minSeverity",
  label: "label",
};

/**
 * `fleet subscribe URL [slack] [env=A,B] [owner=A,B] [labels=k=v,...] [min=warning]`, from the raw line
 * after `subscribe`; the URL is the one word that is neither an option nor `slack`.
 */
function parseSubscribe(line: string, labelGroups: readonly string[]): FleetCommand {
  const lists = { environments: [] as string[], owners: [] as string[] };
  const rest = line.replace(LISTED, (_whole, before: string, key: string, value: string) => {
    const field = key.toLowerCase().startsWith("env") ? "environments" : "owners";
    lists[field].push(
      ...value
        .replace(/^["'\u201C]|["'\u201D]$/g, "")
        .split(",")
        .map((entry) => entry.trim())
        .filter((entry) => entry !== ""),
    );
    return before;
  });
  // `min = warning` reads as `min=warning`, as tokenize reads the other commands; a URL holds no blank.
  const words = rest
    .replace(/\s*=\s*/g, "=")
    .split(/\s+/)
    .filter((word) => word !== "");
  let url: string | undefined;
  let slack = false;
  const options: string[] = [];
  for (const word of words) {
    const key = word.includes("=") ? word.slice(0, word.indexOf("=")).toLowerCase() : "";
    if (/^(?:--)?slack$/i.test(word)) slack = true;
    else if (Object.hasOwn(SUBSCRIBE_KEYS, key)) options.push(word);
    else if (url === undefined) url = SLACK_LINK.exec(word)?.[1] ?? word;
    else
      throw new Problem(
        `I do not understand ${quote(word)}: a subscription takes one URL, then slack, env=, owner=, labels= and min=`,
        "fleet-subscribe",
      );
  }
  if (url === undefined)
    throw new Problem(
      "give the receiver's URL: fleet subscribe https://hooks.example.com/kubecompat (add slack for a Slack incoming webhook)",
      "fleet-subscribe",
    );
  const { values, labels } = takeKeyed(options, "fleet-subscribe", SUBSCRIBE_KEYS);
  const pairs = [...labelGroups.flatMap((group) => group.split(",")), ...labels]
    .map((pair) => pair.trim())
    .filter((pair) => pair !== "");
  return {
    kind: "fleet-subscribe",
    url,
    slack,
    ...(lists.environments.length === 0 ? {} : { environments: lists.environments }),
    ...(lists.owners.length === 0 ? {} : { owners: lists.owners }),
    ...(pairs.length === 0 ? {} : { labels: labelsOf(pairs, "fleet-subscribe") }),
    // The schema names the severities in capitals, as REST's JSON carries them; chat is typed in lower case.
    ...(values.minSeverity === undefined ? {} : { minSeverity: values.minSeverity.toUpperCase() }),
  };
}

function parseWords(
  words: readonly string[],
  labelGroups: readonly string[],
  paste: string,
): FleetCommand {
  const [first, ...args] = words;
  const sub = first?.toLowerCase();
  if (sub === "register" || sub === "add") return parseRegister(args, labelGroups, paste);
  if (labelGroups.length > 0)
    throw new Problem(
      "labels= is for fleet register and fleet subscribe; the list selects with label=key=value",
      "fleet",
    );
  if (paste.trim() !== "")
    throw new Problem(
      "only fleet register takes kubectl's outputs after the first line",
      "fleet-register",
    );
  switch (sub) {
    case undefined:
    case "list":
    case "ls":
      return parseList(args);
    case "show":
    case "cluster": {
      if (args.length !== 1) throw new Problem("name one cluster: fleet show NAME", "fleet-show");
      return { kind: "fleet-show", name: args[0]! };
    }
    case "events":
    case "event": {
      const { rest, values } = takeKeyed(args, "fleet-events", { cluster: "cluster" });
      if (rest.length + (values.cluster === undefined ? 0 : 1) > 1)
        throw new Problem("name at most one cluster: fleet events [NAME]", "fleet-events");
      const cluster = values.cluster ?? rest[0];
      return { kind: "fleet-events", ...(cluster === undefined ? {} : { cluster }) };
    }
    case "waivers": {
      noMore(args, "fleet-waivers", "after fleet waivers");
      return { kind: "fleet-waivers" };
    }
    case "waive":
      return parseWaive(args);
    case "unwaive":
      return {
        kind: "fleet-unwaive",
        id: idOf(args, "fleet-unwaive", "waiver", "fleet waivers"),
      };
    case "subscriptions": {
      noMore(args, "fleet-subscriptions", "after fleet subscriptions");
      return { kind: "fleet-subscriptions" };
    }
    case "unsubscribe":
      return {
        kind: "fleet-unsubscribe",
        id: idOf(args, "fleet-unsubscribe", "subscription", "fleet subscriptions"),
      };
    case "deliveries": {
      const { rest, values } = takeKeyed(args, "fleet-deliveries", { status: "status" });
      if (rest.length + (values.status === undefined ? 0 : 1) > 1)
        throw new Problem(
          "name at most one status: fleet deliveries [dead|pending|delivered]",
          "fleet-deliveries",
        );
      const status = values.status ?? rest[0];
      return { kind: "fleet-deliveries", ...(status === undefined ? {} : { status }) };
    }
    case "replay":
      return {
        kind: "fleet-replay",
        id: idOf(args, "fleet-replay", "delivery", "fleet deliveries"),
      };
    default:
      if (first!.includes("=")) return parseList(words);
      if (args.length > 0)
        throw new Problem(
          `I do not know ${quote(`fleet ${first!}`)}; name one cluster (fleet NAME) or a fleet command`,
          "fleet",
        );
      return { kind: "fleet-show", name: first! };
  }
}

/** Reads a fleet command, or undefined when the text is not one. */
export function parseFleet(text: string): ParseResult | undefined {
  const match = FLEET.exec(text);
  if (match === null) return undefined;
  const labelGroups: string[] = [];
  const line = match[1]!.replace(LABELS, (_whole, before: string, value: string) => {
    labelGroups.push(value.replace(/^["'\u201C]|["'\u201D]$/g, ""));
    return before;
  });
  try {
    const subscribe = SUBSCRIBE.exec(line);
    if (subscribe !== null) {
      if (match[2]!.trim() !== "")
        throw new Problem("fleet subscribe takes one line", "fleet-subscribe");
      return { ok: true, command: parseSubscribe(subscribe[1]!, labelGroups) };
    }
    return { ok: true, command: parseWords(tokenize(line), labelGroups, match[2]!) };
  } catch (error) {
    if (error instanceof Problem)
      return {
        ok: false,
        problem: error.message,
        ...(error.kind === undefined ? {} : { kind: error.kind }),
      };
    throw error;
  }
}
