package io.railyard.cli;

import io.railyard.api.Names;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code railyard await-rank}: an init container of the gang's pods. For topology-ordered jobs it waits until the operator
 * has written the pod's node rank and master address (a downward-API file of the pod's annotations), then writes the
 * variables torchrun reads to a file the trainer sources. For jobs that restart in place it also waits until the pod's
 * attempt label (a downward-API file of its labels) is newer than the attempt the trainer last ran, kept in a file of
 * the pod's emptyDir: a pod whose trainer failed and restarted it waits here for the gang's next attempt.
 */
@Command(
        name = "await-rank",
        mixinStandardHelpOptions = true,
        description = "Wait for the operator's rank annotations and the gang's next attempt, then write PET_NODE_RANK and PET_MASTER_ADDR for torchrun.")
final class AwaitRankCommand implements Callable<Integer> {
    private static final Pattern ANNOTATION = Pattern.compile("^([^=]+)=\"(.*)\"$");
    private static final Pattern RANK = Pattern.compile("\\d{1,6}");
    private static final Pattern HOST = Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9.]{0,252})");

    @Option(names = "--annotations", description = "The downward-API file of the pod's annotations (with --env-file: wait for the rank).")
    Path annotations;

    @Option(names = "--env-file", description = "The file to write for the trainer to source.")
    Path envFile;

    @Option(names = "--labels", description = "The downward-API file of the pod's labels (with --attempt-file: wait for a new attempt).")
    Path labels;

    @Option(names = "--attempt-file", description = "The file that keeps the attempt the trainer last ran.")
    Path attemptFile;

    @Option(names = "--barrier-port", description = "With --attempt-file: the port of rank 0's gate for a new attempt, which lets the"
            + " ranks through together once every one carries it (default: none).")
    int barrierPort;

    @picocli.CommandLine.Mixin
    ChannelKeyOptions channel = new ChannelKeyOptions();

    @Option(names = "--bind-interface", paramLabel = "NAME", description = "Rank 0's gate listens on this interface's address only"
            + " (on the host network: the job's, NCCL_SOCKET_IFNAME's), not on every address (default: every address).")
    String bindInterface;

    @Option(names = "--nodes", defaultValue = "1", description = "The gang's pods, for the gate.")
    int nodes;

    @Option(names = "--master-addr", description = "Rank 0's address, for the gate, where the annotations do not give it.")
    String masterAddress;

    @Option(names = "--timeout-seconds", defaultValue = "3600", description = "How long to wait (default: ${DEFAULT-VALUE}).")
    long timeoutSeconds;

    @Option(names = "--poll-ms", defaultValue = "1000", hidden = true)
    long pollMillis;

    @Override
    public Integer call() throws Exception {
        if ((annotations == null) != (envFile == null) || (labels == null) != (attemptFile == null) || annotations == null && labels == null) {
            throw new Railyard.UsageException("give --annotations with --env-file, --labels with --attempt-file, or both pairs");
        }
        Instant deadline = Instant.now().plus(Duration.ofSeconds(timeoutSeconds));
        while (true) {
            Optional<String> rank = annotations == null ? Optional.of("") : rankEnvironment();
            OptionalLong attempt = labels == null ? OptionalLong.of(-1) : newAttempt(labels, attemptFile);
            if (rank.isPresent() && attempt.isPresent()) {
                if (barrierPort > 0 && attemptFile != null && !gate(attempt.getAsLong(), deadline)) {
                    System.err.println("await-rank: not every rank reached attempt " + attempt.getAsLong() + " within " + timeoutSeconds + " s");
                    return 1;
                }
                if (envFile != null) {
                    Files.writeString(envFile, rank.get());
                }
                if (attemptFile != null) {
                    Files.writeString(attemptFile, attempt.getAsLong() + "\n");
                    System.err.println("await-rank: attempt " + attempt.getAsLong());
                }
                return 0;
            }
            if (Instant.now().isAfter(deadline)) {
                System.err.println("await-rank: " + (rank.isEmpty() ? "no rank" : "no new attempt") + " from the operator after " + timeoutSeconds
                        + " s: is the operator running?");
                return 1;
            }
            Thread.sleep(pollMillis);
        }
    }

    /** The gang's gate for the attempt: this pod's rank and rank 0's address from its annotations, else its index and --master-addr. */
    private boolean gate(long attempt, Instant deadline) throws IOException, InterruptedException {
        Map<String, String> values = annotations == null ? Map.of() : read(annotations);
        String rank = values.getOrDefault(Names.NODE_RANK_ANNOTATION, read(labels).get(Names.INDEX_LABEL));
        String master = values.getOrDefault(Names.MASTER_ADDR_ANNOTATION, masterAddress);
        if (rank == null || !RANK.matcher(rank).matches() || master == null || !HOST.matcher(master).matches()) {
            throw new Railyard.UsageException("the gate needs the pod's rank (" + Names.NODE_RANK_ANNOTATION + " or " + Names.INDEX_LABEL
                    + ") and rank 0's address (" + Names.MASTER_ADDR_ANNOTATION + " or --master-addr)");
        }
        return AttemptBarrier.await(master, InterfaceAddress.of(bindInterface), barrierPort, Integer.parseInt(rank), nodes, attempt, deadline, channel.seal(),
                new java.io.PrintWriter(System.err, true));
    }

    /** The variables for torchrun once the operator has written the rank and master address. */
    private Optional<String> rankEnvironment() throws IOException {
        Map<String, String> values = read(annotations);
        String rank = values.get(Names.NODE_RANK_ANNOTATION);
        String master = values.get(Names.MASTER_ADDR_ANNOTATION);
        if (rank == null || master == null) {
            return Optional.empty();
        }
        // These values end up in a file a shell sources: only a number and a host name are accepted.
        if (!RANK.matcher(rank).matches() || !HOST.matcher(master).matches()) {
            throw new Railyard.UsageException("annotations " + Names.NODE_RANK_ANNOTATION + "=" + rank + " or "
                    + Names.MASTER_ADDR_ANNOTATION + "=" + master + " are not a rank and a host name");
        }
        System.err.println("await-rank: node rank " + rank + ", master " + master);
        return Optional.of("export PET_NODE_RANK=" + rank + "\nexport PET_MASTER_ADDR=" + master + "\n");
    }

    /** The pod's attempt when it is newer than the one the trainer last ran (none yet: any). */
    static OptionalLong newAttempt(Path labels, Path attemptFile) throws IOException {
        OptionalLong attempt = attempt(read(labels).get(Names.ATTEMPT_LABEL));
        OptionalLong ran = ran(attemptFile);
        return attempt.isPresent() && (ran.isEmpty() || attempt.getAsLong() > ran.getAsLong()) ? attempt : OptionalLong.empty();
    }

    /** The attempt the trainer last ran, from the emptyDir's file; none before the first. */
    static OptionalLong ran(Path attemptFile) throws IOException {
        try {
            return attempt(Files.readString(attemptFile).strip());
        } catch (NoSuchFileException e) {
            return OptionalLong.empty();
        }
    }

    private static OptionalLong attempt(String value) {
        return value != null && RANK.matcher(value).matches() ? OptionalLong.of(Long.parseLong(value)) : OptionalLong.empty();
    }

    /** The downward API writes one {@code key="value"} per line, the value quoted as a Go string. */
    static Map<String, String> read(Path file) throws IOException {
        Map<String, String> values = new HashMap<>();
        String text;
        try {
            text = Files.readString(file);
        } catch (NoSuchFileException e) {
            return values;
        }
        for (String line : text.split("\n")) {
            Matcher annotation = ANNOTATION.matcher(line.strip());
            if (annotation.matches()) {
                values.put(annotation.group(1), annotation.group(2).replace("\\\"", "\"").replace("\\\\", "\\"));
            }
        }
        return values;
    }
}
