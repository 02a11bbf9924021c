// The checkpoint finalizer's workflow contract, as docs/contract.md states
// it, written from that page alone: no Go code is used.
import { createHash } from 'node:crypto';

export const DEFAULT_TASK_QUEUE = 'checkpoint-finalizer';

// Workflow types, query and signal names.
export const CLAIM_WORKFLOW = 'ClaimEpoch';
export const FINALIZE_WORKFLOW = 'FinalizeCheckpoint';
export const LATEST_WORKFLOW = 'LatestCheckpoint';
export const STATUS_QUERY = 'status';
export const RETRY_NOW_SIGNAL = 'retry-now';

// Memo keys a finalization is started with.
export const MEMO_SUMMARY = 'summary';
export const MEMO_CONTENT_HASH = 'contentHash';
// The finalization's path, chosen at start: its first workflow task then
// records no version marker (two history events fewer).
export const MEMO_PATH = 'path';
export const PATH_VERSION = 2;

// A request naming no maxPublishAttempts gets this many.
export const DEFAULT_MAX_PUBLISH_ATTEMPTS = 3;

export interface ClaimRequest {
  cluster: string;
  job: string;
  epoch: number;
  owner: string;
}

export interface LatestRequest {
  cluster: string;
  job: string;
}

// FinalizeRequest carries pointers and checksums, never state bytes.
export interface FinalizeRequest {
  cluster: string;
  job: string;
  epoch: number;
  // The claimant of epoch, exactly as its ClaimEpoch named it: the publish
  // is conditional on the whole claim. Not part of the content hash.
  owner: string;
  checkpoint: number;
  metadataKey: string;
  metadataSha256: string;
  exclusivePrefix?: string;
  savepoint?: boolean;
  maxPublishAttempts?: number;
}

export type Phase =
  | 'Persisting'
  | 'Publishing'
  | 'Verifying'
  | 'Discarding'
  | 'Published'
  | 'Discarded'
  | 'Abandoned'
  | 'Failed';

export interface FinalizeResult {
  phase: Phase;
  attempts: number;
  reason?: string;
  handleKey?: string;
}

// Status answers the `status` query of a finalization.
export interface Status {
  phase: Phase;
  phaseSince: string;
  startedAt: string;
  attempts: number;
  verifications: number;
  fences: number;
  lastError?: string;
  handleKey?: string;
  storeKind?: string;
  // Nanoseconds spent in each phase left so far.
  timings: Record<string, number>;
}

export interface RestoreCheckpoint {
  checkpoint: number;
  epoch?: number;
  metadataKey?: string;
  metadataSha256?: string;
  exclusivePrefix?: string;
  savepoint?: boolean;
  handleKey: string;
  // What Flink's -s / execution.savepoint.path takes.
  restorePath?: string;
}

// RestorePoint answers ClaimEpoch and LatestCheckpoint.
export interface RestorePoint {
  cluster: string;
  job: string;
  epoch: number;
  state: 'none' | 'resolved' | 'dangling';
  latest?: RestoreCheckpoint;
  dangling?: string;
  fallback?: RestoreCheckpoint;
}

export function claimWorkflowId(r: ClaimRequest): string {
  return `claim/${r.cluster}/${r.job}/${r.epoch}`;
}

export function finalizeWorkflowId(r: FinalizeRequest): string {
  return `finalize/${r.cluster}/${r.job}/${r.epoch}/${r.checkpoint}`;
}

// A read never attaches to an earlier one: the nonce makes each ID unique.
export function latestWorkflowId(r: LatestRequest, nonce: string): string {
  return `latest/${r.cluster}/${r.job}/${nonce}`;
}

// Content is what the content hash covers: a request without its owner.
export type Content = Omit<FinalizeRequest, 'owner'>;

// canonical is the content hash's input: compact JSON with the fields in
// exactly this order, exclusivePrefix omitted when empty, savepoint only
// when true, maxPublishAttempts always (3 when the request names none).
// The owner is left out.
export function canonical(r: Content): string {
  const fields: string[] = [
    `"cluster":${str(r.cluster)}`,
    `"job":${str(r.job)}`,
    `"epoch":${int(r.epoch)}`,
    `"checkpoint":${int(r.checkpoint)}`,
    `"metadataKey":${str(r.metadataKey)}`,
    `"metadataSha256":${str(r.metadataSha256)}`,
  ];
  if (r.exclusivePrefix) fields.push(`"exclusivePrefix":${str(r.exclusivePrefix)}`);
  if (r.savepoint) fields.push(`"savepoint":true`);
  fields.push(`"maxPublishAttempts":${int(r.maxPublishAttempts || DEFAULT_MAX_PUBLISH_ATTEMPTS)}`);
  return `{${fields.join(',')}}`;
}

// contentHash is the sha256 (lowercase hex) of the canonical form.
export function contentHash(r: Content): string {
  return createHash('sha256').update(canonical(r), 'utf8').digest('hex');
}

// summary is the memo summary the Web UI lists.
export function summary(r: FinalizeRequest): string {
  const kind = r.savepoint ? 'savepoint' : 'checkpoint';
  return `${kind} ${r.checkpoint} of ${r.cluster}/${r.job} (epoch ${r.epoch})`;
}

// str writes a JSON string. A valid request's strings hold only characters
// JSON never escapes (DNS labels, keys of [A-Za-z0-9._/-], hex), which the
// canonical form writes as they are; for anything else this adds the escapes
// the finalizer's Go encoder adds (<, >, & and the two line separators), so
// that even an invalid request (it ends Failed) hashes alike.
function str(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// int writes a base-10 integer. The contract allows epochs and checkpoint
// IDs up to 2^64-1; this example keeps them below 2^53, where a JavaScript
// number is exact (beyond that: BigInt, and a JSON encoder that writes it).
function int(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${n}: not an integer from 0 to 2^53-1, which this example writes exactly`);
  return String(n);
}
