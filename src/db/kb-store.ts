/**
 * The store's knowledge-base reads under their old module name, until every
 * importer names the module that holds them.
 */
export { readKnowledgeBase, readRevision, type StoredKnowledgeBase } from "./kb-read.js";
export { readAudit, type AuditQuery } from "./kb-audit.js";
export { KB_CHANGED_CHANNEL } from "./kb-write-lock.js";
export { textLiteral } from "./sql-literals.js";
