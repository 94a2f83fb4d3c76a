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
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code railyard await-rank}: the init container of topology-ordered jobs. It waits until the operator has written the
 * pod's node rank and master address (read through a downward-API file of the pod's annotations), then writes the
 * variables torchrun reads to a file the trainer sources.
 */
@Command(
        name = "await-rank",
        mixinStandardHelpOptions = true,
        description = "Wait for the operator's rank annotations, then write PET_NODE_RANK and PET_MASTER_ADDR for torchrun.")
final class AwaitRankCommand implements Callable<Integer> {
    private static final Pattern ANNOTATION = Pattern.compile("^([^=]+)=\"(.*)\"$");
    private static final Pattern RANK = Pattern.compile("\\d{1,6}");
    private static final Pattern HOST = Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9.]{0,252})");

    @Option(names = "--annotations", required = true, description = "The downward-API file of the pod's annotations.")
    Path annotations;

    @Option(names = "--env-file", required = true, description = "The file to write for the trainer to source.")
    Path envFile;

    @Option(names = "--timeout-seconds", defaultValue = "3600", description = "How long to wait (default: ${DEFAULT-VALUE}).")
    long timeoutSeconds;

    @Option(names = "--poll-ms", defaultValue = "1000", hidden = true)
    long pollMillis;

    @Override
    public Integer call() throws Exception {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(timeoutSeconds));
        while (true) {
            Map<String, String> values = read(annotations);
            String rank = values.get(Names.NODE_RANK_ANNOTATION);
            String master = values.get(Names.MASTER_ADDR_ANNOTATION);
            if (rank != null && master != null) {
                // These values end up in a file a shell sources: only a number and a host name are accepted.
                if (!RANK.matcher(rank).matches() || !HOST.matcher(master).matches()) {
                    throw new Railyard.UsageException("annotations " + Names.NODE_RANK_ANNOTATION + "=" + rank + " or "
                            + Names.MASTER_ADDR_ANNOTATION + "=" + master + " are not a rank and a host name");
                }
                Files.writeString(envFile, "export PET_NODE_RANK=" + rank + "\nexport PET_MASTER_ADDR=" + master + "\n");
                System.err.println("await-rank: node rank " + rank + ", master " + master);
                return 0;
            }
            if (Instant.now().isAfter(deadline)) {
                System.err.println("await-rank: no rank from the operator after " + timeoutSeconds + " s: is the operator running?");
                return 1;
            }
            Thread.sleep(pollMillis);
        }
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
