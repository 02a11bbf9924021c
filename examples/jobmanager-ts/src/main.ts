// A job manager's side of the checkpoint finalizer, in TypeScript with
// @temporalio/client only: it claims its epoch, recovers from the restore
// point the claim answers, writes each checkpoint's files into the state
// bucket, triggers its finalization idempotently and acknowledges it only
// once Published. See docs/contract.md, "Job managers in other languages".
//
//   node dist/main.js run [epoch]                 the whole loop: claim, 3 checkpoints, latest
//   node dist/main.js claim <epoch> <owner>       ClaimEpoch; prints the restore point
//   node dist/main.js write <checkpoint>          the checkpoint's files into the bucket
//   node dist/main.js finalize <epoch> <checkpoint> [maxPublishAttempts]   as JM_OWNER
//   node dist/main.js status <epoch> <checkpoint> the `status` query
//   node dist/main.js retry-now <epoch> <checkpoint>
//   node dist/main.js wait <epoch> <checkpoint>   the result; exit 0 only on Published
//   node dist/main.js latest                      LatestCheckpoint
//   node dist/main.js hash < request.json         the canonical form and content hash of a request
//
// Environment: TEMPORAL_ADDRESS (127.0.0.1:7233), TEMPORAL_NAMESPACE
// (default), FINALIZER_TASK_QUEUE (checkpoint-finalizer), JM_STATE_DIR (the
// file bucket's directory, finalizer-data/state), JM_CLUSTER, JM_JOB,
// JM_OWNER (this job manager's identity, e.g. its leader session ID: the
// owner `run` claims its epoch with, and the owner every `finalize` names,
// which must be the one the epoch was claimed with; `finalize` requires it,
// `run` makes one up without it).
//
// Every command prints one JSON line on stdout. Exit codes: 0 done, 1 error,
// 2 usage, 3 claim rejected (a newer or another claim stands), 4 a different
// content holds this finalization's identity, 5 the finalization ended
// other than Published.
import { randomUUID, createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

import {
  ApplicationFailure,
  Client,
  Connection,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
} from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

import {
  canonical,
  CLAIM_WORKFLOW,
  ClaimRequest,
  claimWorkflowId,
  contentHash,
  DEFAULT_TASK_QUEUE,
  FINALIZE_WORKFLOW,
  FinalizeRequest,
  FinalizeResult,
  finalizeWorkflowId,
  LATEST_WORKFLOW,
  latestWorkflowId,
  MEMO_CONTENT_HASH,
  MEMO_PATH,
  MEMO_SUMMARY,
  PATH_VERSION,
  RestorePoint,
  RETRY_NOW_SIGNAL,
  Status,
  STATUS_QUERY,
  summary,
} from './contract';

// Search attributes a finalization is started with, so that it is listed
// (and found by the stuck query) at once.
const attrCluster = defineSearchAttributeKey('CheckpointCluster', SearchAttributeType.KEYWORD);
const attrJob = defineSearchAttributeKey('CheckpointJob', SearchAttributeType.KEYWORD);
const attrEpoch = defineSearchAttributeKey('CheckpointEpoch', SearchAttributeType.INT);
const attrCheckpoint = defineSearchAttributeKey('CheckpointID', SearchAttributeType.INT);
const attrPhase = defineSearchAttributeKey('FinalizationPhase', SearchAttributeType.KEYWORD);
const attrPhaseSince = defineSearchAttributeKey('PhaseSince', SearchAttributeType.DATETIME);

const EXIT_USAGE = 2;
const EXIT_REJECTED = 3;
const EXIT_CONTENT_MISMATCH = 4;
const EXIT_NOT_PUBLISHED = 5;

class ExitError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly output?: unknown,
  ) {
    super(message);
  }
}

interface Settings {
  address: string;
  namespace: string;
  taskQueue: string;
  stateDir: string;
  cluster: string;
  job: string;
  // owner: JM_OWNER, empty when unset.
  owner: string;
}

function settings(): Settings {
  const env = process.env;
  const s = {
    address: env.TEMPORAL_ADDRESS || '127.0.0.1:7233',
    namespace: env.TEMPORAL_NAMESPACE || 'default',
    taskQueue: env.FINALIZER_TASK_QUEUE || DEFAULT_TASK_QUEUE,
    stateDir: env.JM_STATE_DIR || 'finalizer-data/state',
    cluster: env.JM_CLUSTER || '',
    job: env.JM_JOB || '',
    owner: env.JM_OWNER || '',
  };
  // Cluster and job IDs are DNS-1123 labels: they can never escape a path.
  const label = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
  if (!label.test(s.cluster) || !label.test(s.job)) {
    throw new ExitError(EXIT_USAGE, 'JM_CLUSTER and JM_JOB must be DNS-1123 labels ([a-z0-9-], 1-63 characters)');
  }
  return s;
}

// writeCheckpoint puts the checkpoint's files into the bucket, as Flink
// does before it triggers: <cluster>/<job>/chk-<n>/_metadata and a data file.
function writeCheckpoint(s: Settings, checkpoint: number) {
  const exclusivePrefix = `${s.cluster}/${s.job}/chk-${checkpoint}/`;
  const metadata = Buffer.from(`metadata of ${s.cluster}/${s.job} checkpoint ${checkpoint}`);
  writeDurably(path.join(s.stateDir, exclusivePrefix, 'data-0'), Buffer.from('operator state'));
  writeDurably(path.join(s.stateDir, exclusivePrefix, '_metadata'), metadata);
  return { metadataKey: exclusivePrefix + '_metadata', metadataSha256: sha256(metadata), exclusivePrefix };
}

// request builds the request of a checkpoint whose files are in the bucket,
// naming owner, the claimant of epoch: a request naming the standing epoch
// under another owner publishes nothing.
function request(
  s: Settings,
  owner: string,
  epoch: number,
  checkpoint: number,
  maxPublishAttempts?: number,
): FinalizeRequest {
  const exclusivePrefix = `${s.cluster}/${s.job}/chk-${checkpoint}/`;
  const metadataKey = exclusivePrefix + '_metadata';
  const metadata = fs.readFileSync(path.join(s.stateDir, metadataKey));
  const req: FinalizeRequest = {
    cluster: s.cluster,
    job: s.job,
    epoch,
    owner,
    checkpoint,
    metadataKey,
    metadataSha256: sha256(metadata),
    exclusivePrefix,
  };
  if (maxPublishAttempts) req.maxPublishAttempts = maxPublishAttempts;
  return req;
}

class JobManager {
  constructor(
    private readonly client: Client,
    private readonly s: Settings,
  ) {}

  // claim claims the epoch for owner and returns the restore point. A
  // claim of the same ID that is still running may be another owner's: its
  // outcome is not ours, so wait for it to end and claim again.
  async claim(epoch: number, owner: string): Promise<RestorePoint> {
    const req: ClaimRequest = { cluster: this.s.cluster, job: this.s.job, epoch, owner };
    const workflowId = claimWorkflowId(req);
    for (;;) {
      let handle;
      try {
        handle = await this.client.workflow.start(CLAIM_WORKFLOW, {
          workflowId,
          taskQueue: this.s.taskQueue,
          args: [req],
          workflowIdConflictPolicy: 'FAIL',
          workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        });
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError) {
          await this.client.workflow
            .getHandle(workflowId)
            .result()
            .catch(() => undefined);
          continue;
        }
        throw err;
      }
      try {
        return (await handle.result()) as RestorePoint;
      } catch (err) {
        const rejected = rejection(err);
        if (rejected) {
          throw new ExitError(EXIT_REJECTED, `claim ${workflowId}: ${rejected.type}: ${rejected.message}`, {
            rejected: rejected.type,
            message: rejected.message,
          });
        }
        throw err;
      }
    }
  }

  // finalize is the idempotent trigger: start with the identity's workflow
  // ID, failing on a running execution and refusing to run a completed one
  // again; on "already started", attach to the execution that stands and
  // compare the content hash its memo carries with ours.
  async finalize(req: FinalizeRequest) {
    const workflowId = finalizeWorkflowId(req);
    const hash = contentHash(req);
    try {
      const handle = await this.client.workflow.start(FINALIZE_WORKFLOW, {
        workflowId,
        taskQueue: this.s.taskQueue,
        args: [req],
        workflowIdConflictPolicy: 'FAIL',
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        memo: { [MEMO_SUMMARY]: summary(req), [MEMO_CONTENT_HASH]: hash, [MEMO_PATH]: PATH_VERSION },
        typedSearchAttributes: [
          { key: attrCluster, value: req.cluster },
          { key: attrJob, value: req.job },
          { key: attrEpoch, value: req.epoch },
          { key: attrCheckpoint, value: req.checkpoint },
          { key: attrPhase, value: 'Persisting' },
          { key: attrPhaseSince, value: new Date() },
        ],
      });
      return { workflowId, runId: handle.firstExecutionRunId, contentHash: hash, started: true };
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
    const existing = await this.client.workflow.getHandle(workflowId).describe();
    const existingHash = existing.memo?.[MEMO_CONTENT_HASH];
    if (existingHash !== hash) {
      throw new ExitError(
        EXIT_CONTENT_MISMATCH,
        `${workflowId}: a different content holds this identity (its content hash ${String(existingHash)}, ours ${hash})`,
        { workflowId, runId: existing.runId, refused: true, existing: existingHash ?? null, requested: hash },
      );
    }
    return { workflowId, runId: existing.runId, contentHash: hash, started: false };
  }

  async status(epoch: number, checkpoint: number): Promise<Status> {
    return this.client.workflow.getHandle(this.finalizationId(epoch, checkpoint)).query<Status>(STATUS_QUERY);
  }

  // retryNow ends a verify backoff; a finalization that ended meanwhile
  // needs none.
  async retryNow(epoch: number, checkpoint: number) {
    const handle = this.client.workflow.getHandle(this.finalizationId(epoch, checkpoint));
    try {
      await handle.signal(RETRY_NOW_SIGNAL);
      return { signalled: true };
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
      const d = await handle.describe(); // not found at all: that error stands
      if (d.status.name === 'RUNNING') throw err;
      return { signalled: false, status: d.status.name };
    }
  }

  async wait(epoch: number, checkpoint: number): Promise<FinalizeResult> {
    const id = this.finalizationId(epoch, checkpoint);
    const res = (await this.client.workflow.getHandle(id).result()) as FinalizeResult;
    if (res.phase !== 'Published') {
      throw new ExitError(EXIT_NOT_PUBLISHED, `${id} ended ${res.phase}: ${res.reason ?? ''}`, res);
    }
    return res;
  }

  async latest(): Promise<RestorePoint> {
    const req = { cluster: this.s.cluster, job: this.s.job };
    return (await this.client.workflow.execute(LATEST_WORKFLOW, {
      workflowId: latestWorkflowId(req, randomUUID()),
      taskQueue: this.s.taskQueue,
      args: [req],
    })) as RestorePoint;
  }

  // run is a job manager's life as a leader: claim (without an epoch, the
  // one above the job's standing epoch) as JM_OWNER (without it, an
  // identity of this process), recover from what the claim answers, then
  // take three checkpoints under that claim, acknowledging each only on
  // Published (the last one triggered twice, as after a lost answer).
  async run(epoch: number | undefined, log: (line: unknown) => void) {
    if (epoch === undefined) epoch = (await this.latest()).epoch + 1;
    const owner = this.s.owner || `jobmanager-ts-${process.pid}`;
    const restore = await this.claim(epoch, owner);
    log({ claimed: epoch, restore });
    if (restore.state === 'dangling' && !restore.fallback) {
      throw new Error(`the newest checkpoint does not resolve (${restore.dangling}) and no older one does`);
    }
    const from = restore.state === 'resolved' ? restore.latest : restore.fallback;
    log({ recoverFrom: from?.restorePath ?? null });
    let next = (from?.checkpoint ?? 0) + 1;
    for (const last = next + 2; next <= last; next++) {
      writeCheckpoint(this.s, next);
      const req = request(this.s, owner, epoch, next);
      const trigger = await this.finalize(req);
      if (next === last) log({ again: await this.finalize(req), first: trigger.runId });
      const result = await this.wait(epoch, next);
      log({ checkpoint: next, acknowledged: result.phase === 'Published', result });
    }
    log({ latest: await this.latest() });
  }

  private finalizationId(epoch: number, checkpoint: number): string {
    return `finalize/${this.s.cluster}/${this.s.job}/${epoch}/${checkpoint}`;
  }
}

// rejection finds the type of the store's rejection (Rejected.*) on the
// failure's cause chain: the workflow failed because its activity did.
function rejection(err: unknown): { type: string; message: string } | undefined {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e instanceof ApplicationFailure && e.type?.startsWith('Rejected.')) return { type: e.type, message: e.message };
  }
  return undefined;
}

function sha256(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}

function writeDurably(file: string, data: Buffer) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const fd = fs.openSync(file, 'w', 0o644);
  try {
    fs.writeSync(fd, data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function uint(s: string | undefined, what: string): number {
  if (!s || !/^[0-9]+$/.test(s) || !Number.isSafeInteger(Number(s)) || Number(s) < 1) {
    throw new ExitError(EXIT_USAGE, `${what}: want a positive integer, got ${JSON.stringify(s ?? '')}`);
  }
  return Number(s);
}

const usage = `usage: main.js run [epoch] | claim <epoch> <owner> | write <checkpoint> |
  finalize <epoch> <checkpoint> [maxPublishAttempts] | status|retry-now|wait <epoch> <checkpoint> | latest | hash`;

async function main(args: string[]): Promise<number> {
  const print = (v: unknown) => process.stdout.write(JSON.stringify(v) + '\n');
  const [command, a, b, c] = args;
  if (command === 'hash') {
    const req = JSON.parse(fs.readFileSync(0, 'utf8')) as FinalizeRequest;
    print({ canonical: canonical(req), contentHash: contentHash(req) });
    return 0;
  }
  const s = settings();
  if (command === 'write') {
    print(writeCheckpoint(s, uint(a, 'checkpoint')));
    return 0;
  }
  const known = ['run', 'claim', 'finalize', 'status', 'retry-now', 'wait', 'latest'];
  if (!known.includes(command)) throw new ExitError(EXIT_USAGE, usage);
  const connection = await Connection.connect({ address: s.address });
  try {
    const jm = new JobManager(new Client({ connection, namespace: s.namespace }), s);
    switch (command) {
      case 'run':
        await jm.run(a === undefined ? undefined : uint(a, 'epoch'), print);
        break;
      case 'claim':
        if (!b) throw new ExitError(EXIT_USAGE, usage);
        print(await jm.claim(uint(a, 'epoch'), b));
        break;
      case 'finalize': {
        const epoch = uint(a, 'epoch');
        if (!s.owner) throw new ExitError(EXIT_USAGE, `finalize: set JM_OWNER to the owner epoch ${epoch} was claimed with`);
        print(await jm.finalize(request(s, s.owner, epoch, uint(b, 'checkpoint'), c ? uint(c, 'maxPublishAttempts') : undefined)));
        break;
      }
      case 'status':
        print(await jm.status(uint(a, 'epoch'), uint(b, 'checkpoint')));
        break;
      case 'retry-now':
        print(await jm.retryNow(uint(a, 'epoch'), uint(b, 'checkpoint')));
        break;
      case 'wait':
        print(await jm.wait(uint(a, 'epoch'), uint(b, 'checkpoint')));
        break;
      case 'latest':
        print(await jm.latest());
        break;
    }
    return 0;
  } finally {
    await connection.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    if (err instanceof ExitError) {
      if (err.output !== undefined) process.stdout.write(JSON.stringify(err.output) + '\n');
      process.stderr.write(`jobmanager: ${err.message}\n`);
      process.exit(err.code);
    }
    process.stderr.write(`jobmanager: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
