/**
 * The question `fix` answers (POST /api/v1/fix, GraphQL fixManifests, the MCP tool fix_manifests) and its
 * answer: the manifests with every object of an API the target removes rewritten to its replacement, as the
 * domain core (src/domain/manifest-fix.ts) produces it. The answer is documented here, not validated.
 */
import { manifestScanReport } from "./answers.js";
import { targetVersion } from "./cluster-fields.js";
import { MAX_MANIFEST_CHARS } from "./scan-requests.js";
import { shortText, z } from "./openapi-zod.js";

export const fixRequest = z
  .strictObject({
    manifests: z.string().max(MAX_MANIFEST_CHARS, "must be at most 10 MiB").openapi({
      description:
        "Multi-document YAML or JSON, as kept in git or printed by kubectl get -o yaml|json: the text to rewrite.",
    }),
    targetVersion,
    fromVersion: shortText(
      "The version the cluster runs now: an object whose replacement is not served there yet is left as it is (it could not be applied before the upgrade).",
      "1.24",
    ).nullish(),
    allowLossy: z.boolean().nullish().openapi({
      description:
        "Apply conversions that lose information (a field with no counterpart in the replacement); false (the default) leaves such objects as they are, with what would be lost.",
      example: false,
    }),
    fileName: shortText(
      "The file name the unified diff names; manifests when absent.",
      "ingress.yaml",
    ).nullish(),
    template: z.boolean().nullish().openapi({
      description:
        "The manifests are a Helm template (`{{ ... }}` actions): objects are read with the actions covered and the actions written back where a conversion moves them; a conversion that needs what an action renders to (a templated servicePort: number or name?) is refused for that object, with the template's line.",
      example: false,
    }),
  })
  .openapi("FixRequest");

const fieldChange = z
  .object({
    action: z.enum(["API_VERSION", "MOVED", "SET", "ADDED", "DROPPED", "REPLACED"]),
    field: z.string().openapi({
      description:
        "Where, as written in the input: spec.rules[0].http.paths[0].backend.serviceName.",
    }),
    to: z.string().nullable().openapi({ description: "Where a moved field went; null otherwise." }),
    value: z.unknown().openapi({ description: "The value set, added or dropped; null for moves." }),
    note: z.string().nullable(),
    lossy: z.string().nullable().openapi({ description: "What is lost; null when nothing is." }),
  })
  .openapi("FieldChange");

const textReplacement = z
  .object({
    startLine: z.number().int(),
    startColumn: z.number().int(),
    endLine: z.number().int(),
    endColumn: z.number().int(),
    deletedText: z.string(),
    insertedText: z.string(),
  })
  .openapi("TextReplacement", {
    description:
      "A region of the input (1-based lines and columns; the end is the position after the last character, as SARIF's deletedRegion) and the text that replaces it.",
  });

const objectFix = z
  .object({
    status: z.enum(["FIXED", "NOT_FIXED"]),
    apiVersion: z.string(),
    kind: z.string(),
    name: z.string().nullable(),
    namespace: z.string().nullable(),
    documentIndex: z.number().int(),
    line: z.number().int(),
    source: z.string().nullable(),
    toApiVersion: z.string().nullable().openapi({
      description:
        "The apiVersion it was rewritten to (or would be, for NOT_FIXED): the scan's advised replacement; null when none exists.",
    }),
    changes: z.array(fieldChange),
    lossy: z.array(z.string()).openapi({
      description: "What the conversion loses; applied only with allowLossy.",
    }),
    reason: z.string().nullable().openapi({
      description: "Why the object was left as it is; null when fixed.",
    }),
    finding: manifestScanReport.shape.findings.element,
    sourceUrls: z.array(z.string()),
    notes: z.array(z.string()),
    replacements: z.array(textReplacement).openapi({
      description:
        "The edits of the input that fix the object (none when NOT_FIXED), as SARIF's fixes take them.",
    }),
  })
  .openapi("ObjectFix");

export const manifestFixReport = z
  .object({
    targetVersion: z.string(),
    kbRevision: z.number().int(),
    changed: z.boolean().openapi({ description: "True when the text changed." }),
    manifests: z.string().openapi({
      description: "The manifests rewritten (the input itself when nothing changed).",
    }),
    diff: z.string().openapi({
      description:
        "A unified diff of the input to the rewritten manifests; empty when nothing changed.",
    }),
    objects: z.array(objectFix).openapi({
      description: "Every object of an API removed at the target, fixed or not, in input order.",
    }),
    after: manifestScanReport.openapi({
      description:
        "The scan of the rewritten manifests at the target: what is still wrong after the fix.",
    }),
    notes: manifestScanReport.shape.notes.openapi({
      description:
        "Documents the fix could not read, as DOCUMENT_UNREADABLE findings: nothing in them was fixed.",
    }),
  })
  .openapi("ManifestFixReport");
