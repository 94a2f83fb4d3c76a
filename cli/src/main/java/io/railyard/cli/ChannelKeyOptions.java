package io.railyard.cli;

import io.railyard.diagnose.channel.ChannelSeal;
import java.io.IOException;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The job's key for its own channels, as the operator mounts it into await-rank and nccl-speed, and the job's UID. */
final class ChannelKeyOptions {
    @Option(names = "--channel-key", paramLabel = "FILE", description = "The job's key (its Secret, mounted): each message on the job's"
            + " channel is sealed with it, and a message without its seal is refused (default: none, every message believed).")
    Path channelKey;

    @Option(names = "--job-uid", defaultValue = "${env:RAILYARD_JOB_UID}", description = "The TrainingJob's UID, part of each seal"
            + " (default: RAILYARD_JOB_UID).")
    String jobUid;

    /** The job's seal; null without a key. */
    ChannelSeal seal() throws IOException {
        return channelKey == null ? null : ChannelSeal.load(channelKey, jobUid);
    }
}
