package io.github.checkpointfinalizer.flink;

import io.github.checkpointfinalizer.flink.wire.RestoreCheckpoint;

import org.apache.flink.api.common.JobID;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.checkpoint.CheckpointProperties;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.CompletedCheckpoint;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.state.filesystem.AbstractFsCheckpointStorageAccess;
import org.apache.flink.runtime.state.filesystem.FsCompletedCheckpointStorageLocation;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.util.FlinkException;

import java.io.DataInputStream;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.Map;

/**
 * Rebuilds a published checkpoint from its {@code _metadata} with Flink's own loader. The store is
 * created before the job's tasks, class loader and checkpoint storage exist, so this reads the
 * metadata as the {@code -s} path would and leaves validation against the job to the restore.
 */
final class CheckpointLoader {
    private final JobID jobId;
    private final FinalizerSettings settings;

    CheckpointLoader(JobID jobId, FinalizerSettings settings) {
        this.jobId = jobId;
        this.settings = settings;
    }

    CompletedCheckpoint load(RestoreCheckpoint rc) throws Exception {
        Path metadata = settings.bucket().path(rc.metadataKey());
        String pointer = metadata.getParent().toString();
        FsCompletedCheckpointStorageLocation location =
                AbstractFsCheckpointStorageAccess.resolveCheckpointPointer(pointer);
        // One read: the digest is taken while Flink parses, and the parse counts only if it matches.
        MessageDigest sha = StateBucket.sha256();
        CheckpointMetadata md;
        try (DigestInputStream digesting = new DigestInputStream(location.getMetadataHandle().openInputStream(), sha);
                DataInputStream in = new DataInputStream(digesting)) {
            md = Checkpoints.loadCheckpointMetadata(in, CheckpointLoader.class.getClassLoader(), pointer);
            in.transferTo(java.io.OutputStream.nullOutputStream());
        }
        String digest = StateBucket.hex(sha);
        if (!digest.equals(rc.metadataSha256())) {
            throw new FlinkException("checkpoint " + rc.checkpoint() + ": " + metadata + " has SHA-256 " + digest
                    + ", its reference says " + rc.metadataSha256() + ": not restoring from it");
        }
        Map<OperatorID, OperatorState> operators = new HashMap<>();
        for (OperatorState op : md.getOperatorStates()) {
            operators.put(op.getOperatorID(), op);
        }
        CheckpointProperties props = properties(rc, md);
        long written = metadata.getFileSystem().getFileStatus(metadata).getModificationTime();
        return new CompletedCheckpoint(jobId, md.getCheckpointId(), written, written, operators,
                md.getMasterStates(), props, location, null, md.getCheckpointProperties());
    }

    /**
     * The properties the checkpoint was taken with, as stock Flink keeps them with its reference:
     * the job's own retention (set in its code or at submission) decides what a cancel keeps,
     * never the cluster's default. Flink writes them into {@code _metadata} (format version 4 on);
     * only metadata written before falls back to the cluster's setting. Whatever the reference
     * calls a savepoint stays one: nobody deletes its data.
     */
    private CheckpointProperties properties(RestoreCheckpoint rc, CheckpointMetadata md) {
        if (rc.savepoint()) {
            return CheckpointProperties.forSavepoint(false, SavepointFormatType.CANONICAL);
        }
        CheckpointProperties written = md.getCheckpointProperties();
        if (written != null && !written.isSavepoint()) {
            return written;
        }
        return CheckpointProperties.forCheckpoint(settings.retention());
    }

    /** The checkpoint's directory, as the restore point's metadata key names it. */
    static Path directory(CompletedCheckpoint c) {
        Path p = new Path(c.getExternalPointer());
        return p.getName().equals("_metadata") ? p.getParent() : p;
    }
}
