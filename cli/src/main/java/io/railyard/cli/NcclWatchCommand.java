package io.railyard.cli;

import io.railyard.diagnose.ras.HangDetector;
import io.railyard.diagnose.ras.RasClient;
import io.railyard.diagnose.ras.RasJson;
import io.railyard.diagnose.ras.RasReport;
import io.railyard.diagnose.ras.RasText;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code railyard nccl-watch}: polls NCCL's RAS service and says when ranks lag, go missing or the job stalls. */
@Command(name = "nccl-watch", mixinStandardHelpOptions = true, description = {
        "Poll NCCL's RAS service (NCCL 2.24+) and print a line at each change: healthy, lagging, stalled, missing or unavailable.",
        "RAS counts collective launches: a rank stuck inside a collective on the GPU, Send/Recv and CUDA-graph collectives do not show."})
final class NcclWatchCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--ras", paramLabel = "HOST:PORT", description = "RAS's client address, as NCCL_RAS_ADDR (default: ${DEFAULT-VALUE}).",
            defaultValue = "localhost:28028")
    String ras;

    @Option(names = "--interval", paramLabel = "SECONDS", description = "Seconds between polls (default: ${DEFAULT-VALUE}); polling often has crashed NCCL.",
            defaultValue = "30")
    double intervalSeconds;

    @Option(names = "--stall-after", paramLabel = "SECONDS", description = "Seconds without any count moving, with a rank behind, before the job is stalled; a missing process is said at once (default: ${DEFAULT-VALUE}).",
            defaultValue = "300")
    long stallAfterSeconds;

    @Option(names = "--timeout", paramLabel = "SECONDS", description = "How long a poll waits for the report once connected; RAS is asked to"
            + " gather within half of it (default: ${DEFAULT-VALUE}).",
            defaultValue = "10")
    long timeoutSeconds;

    @Option(names = {"-o", "--output"}, paramLabel = "FORMAT", description = "text or json (one object per line) (default: ${DEFAULT-VALUE}).",
            defaultValue = "text")
    String output;

    Clock clock = Clock.systemUTC();

    @Override
    public Integer call() throws InterruptedException {
        if (!output.equals("text") && !output.equals("json")) {
            throw new Railyard.UsageException("--output " + output + " is not text or json");
        }
        if (intervalSeconds <= 0 || stallAfterSeconds < 0 || timeoutSeconds < 1) {
            throw new Railyard.UsageException("--interval must be above 0, --stall-after at least 0 and --timeout at least 1 (seconds)");
        }
        RasClient client = new RasClient(HostPort.parse("--ras", ras), Duration.ofSeconds(timeoutSeconds));
        HangDetector detector = new HangDetector(Duration.ofSeconds(stallAfterSeconds));
        Duration interval = Duration.ofNanos((long) (intervalSeconds * 1e9));
        Termination termination = Termination.listen();
        PrintWriter out = spec.commandLine().getOut();
        HangDetector.Verdict last = null;
        do {
            HangDetector.Verdict verdict = poll(client, detector);
            if (last == null || last.state() != verdict.state() || !Objects.equals(last.ranks(), verdict.ranks())) {
                out.println(output.equals("json") ? Json.line(json(verdict, clock.instant())) : text(verdict, clock.instant()));
                out.flush();
                last = verdict;
            }
        } while (!termination.await(interval));
        return 0;
    }

    private HangDetector.Verdict poll(RasClient client, HangDetector detector) {
        String report;
        try {
            report = client.status();
        } catch (IOException e) {
            return detector.unavailable("RAS at " + ras + " does not answer (" + e.getMessage()
                    + "): NCCL older than 2.24, NCCL_RAS_ENABLE=0, another NCCL_RAS_ADDR, or no NCCL communicator yet");
        }
        try {
            RasReport parsed = RasJson.looksLikeJson(report) ? RasJson.parse(report) : RasText.parse(report);
            return detector.observe(parsed, clock.instant());
        } catch (IllegalArgumentException e) {
            return detector.unavailable("RAS at " + ras + " sent a report that cannot be read: " + e.getMessage());
        }
    }

    static Map<String, Object> json(HangDetector.Verdict verdict, Instant now) {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("time", now.truncatedTo(ChronoUnit.SECONDS).toString());
        line.put("state", verdict.state().name().toLowerCase());
        line.put("ncclVersion", verdict.ncclVersion());
        line.put("communicators", verdict.communicators());
        line.put("ranks", verdict.ranks().stream().map(NcclWatchCommand::rank).toList());
        line.put("message", verdict.message());
        return line;
    }

    private static Map<String, Object> rank(HangDetector.Suspect suspect) {
        Map<String, Object> rank = new LinkedHashMap<>(); // what the report does not give is left out, never -1
        if (suspect.rank() >= 0) {
            rank.put("rank", suspect.rank());
        }
        rank.put("host", suspect.host());
        if (suspect.pid() >= 0) {
            rank.put("pid", suspect.pid());
        }
        if (suspect.cudaDev() >= 0) {
            rank.put("cudaDev", suspect.cudaDev());
        }
        rank.put("reason", suspect.reason());
        return rank;
    }

    private static String text(HangDetector.Verdict verdict, Instant now) {
        return now.truncatedTo(ChronoUnit.SECONDS) + " " + verdict.state().name().toLowerCase()
                + (verdict.ncclVersion() == null ? "" : " (NCCL " + verdict.ncclVersion() + ")") + ": " + verdict.message();
    }
}
