package io.railyard.diagnose.ras;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * NCCL RAS's text status report (2.24 to 2.28.6, and later without {@code SET FORMAT json}): the communicators'
 * mismatch and incomplete blocks, and the job's unresponsive and dead processes. Only the groups the report details
 * are known: the minority one, which may be the ranks that are ahead.
 */
public final class RasText {
    private static final Pattern VERSION = Pattern.compile("NCCL version (\\d+\\.\\d+\\.\\d+)");
    private static final Pattern BLOCK = Pattern.compile("^#\\d+-\\d+ \\(([0-9a-fA-F]+)\\) ([A-Z, ]+)$");
    private static final Pattern OPERATION = Pattern.compile("different (\\w+) operation counts");
    private static final Pattern GROUP = Pattern.compile("^(\\d+) ranks have launched up to operation (\\d+)");
    private static final Pattern NONE = Pattern.compile("^(\\d+) ranks have not launched any operations");
    private static final Pattern ONE = Pattern.compile("^Rank (\\d+) has launched up to operation (\\d+)(?: -- (.*))?");
    private static final Pattern RANK = Pattern.compile("^Rank (\\d+) -- (.*)$");
    private static final Pattern MISSING_RANK = Pattern.compile("^The missing rank: (\\d+)");
    private static final Pattern WHERE = Pattern.compile("GPU (\\d+)(?: \\(NVML \\d+\\))? managed by process (\\d+) on node (\\S+)");
    /** Group #, comms in group, nodes per comm, ranks per node (n or min-max), ranks per comm, ranks in group, status, errors. */
    private static final Pattern GROUP_ROW = Pattern.compile("^(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+(?:-\\d+)?)\\s+(\\d+)\\s+(\\d+)\\s+"
            + "(NOCOMM|UNKNOWN|INIT|RUNNING|FINALIZE|ABORT)\\s+([A-Z,]+)$");
    private static final Pattern PROCESS = Pattern.compile("^Process (\\d+) on node (\\S+) managing GPU (\\d+)");

    private RasText() {}

    /** Whether a line is a row of the report's communicator table. */
    public static boolean isGroupRow(String line) {
        return GROUP_ROW.matcher(line.strip()).matches();
    }

    public static RasReport parse(String text) {
        String version = null;
        List<RasReport.Communicator> communicators = new ArrayList<>();
        List<RasReport.Rank> unresponsive = new ArrayList<>();
        List<RasReport.Rank> dead = new ArrayList<>();
        List<RasReport.Group> groups = new ArrayList<>();
        String section = "";
        Block block = null;
        for (String raw : text.split("\r?\n")) {
            String line = raw.strip();
            Matcher m;
            if (version == null && (m = VERSION.matcher(line)).find()) {
                version = m.group(1);
            } else if ((m = GROUP_ROW.matcher(line)).matches()) {
                groups.add(new RasReport.Group(Integer.parseInt(m.group(5)), Integer.parseInt(m.group(6)), m.group(7), m.group(8)));
            } else if ((m = BLOCK.matcher(line)).matches()) {
                block = new Block(m.group(1));
                communicators.add(block.communicator);
            } else if (line.equals("INCOMPLETE") || line.equals("DEAD") || line.equals("TIMEOUT") || line.equals("Errors")
                    || line.equals("Warnings")) {
                section = line;
                block = null;
            } else if ((m = PROCESS.matcher(line)).find() && block == null) {
                RasReport.Rank process = new RasReport.Rank(-1, m.group(2), Long.parseLong(m.group(1)), Integer.parseInt(m.group(3)));
                (section.equals("DEAD") ? dead : unresponsive).add(process);
            } else if (block != null) {
                block.accept(line);
            }
        }
        return new RasReport(version, communicators, groups, ranked(unresponsive, dead, communicators), ranked(dead, unresponsive, communicators));
    }

    /**
     * The processes with the rank the report gives them elsewhere: a communicator's missing rank of the same process
     * (2.26+ names it), or, in 2.24 and 2.25 ({@code The missing rank: 21}, no process), the one rank missing when the
     * report misses one process only.
     */
    private static List<RasReport.Rank> ranked(List<RasReport.Rank> processes, List<RasReport.Rank> others,
            List<RasReport.Communicator> communicators) {
        List<RasReport.Communicator> largestFirst = communicators.stream()
                .sorted((a, b) -> b.missing().size() - a.missing().size()).toList();
        List<Integer> unplaced = communicators.stream().flatMap(c -> c.missing().stream()).filter(r -> r.pid() < 0 && r.rank() >= 0)
                .map(RasReport.Rank::rank).distinct().toList();
        long pids = java.util.stream.Stream.concat(processes.stream(), others.stream()).mapToLong(RasReport.Rank::pid).distinct().count();
        boolean onlyOne = pids == 1 && unplaced.size() == 1;
        return processes.stream().map(process -> {
            for (RasReport.Communicator comm : largestFirst) {
                for (RasReport.Rank rank : comm.missing()) {
                    if (rank.pid() == process.pid() && rank.rank() >= 0) {
                        return new RasReport.Rank(rank.rank(), process.host(), process.pid(), process.cudaDev());
                    }
                }
            }
            return onlyOne ? new RasReport.Rank(unplaced.getFirst(), process.host(), process.pid(), process.cudaDev()) : process;
        }).toList();
    }

    /** One {@code #group-index (hash) STATUS} block and its lines. */
    private static final class Block {
        final RasReport.Communicator communicator;
        final Map<String, List<RasReport.Launched>> operations = new LinkedHashMap<>();
        final List<RasReport.Rank> missing = new ArrayList<>();
        String operation = "collectives";
        List<RasReport.Rank> named;
        boolean missingData;

        Block(String id) {
            communicator = new RasReport.Communicator(id.replaceFirst("^0+(?=.)", ""), 0, operations, missing);
        }

        void accept(String line) {
            Matcher m;
            if ((m = OPERATION.matcher(line)).find()) {
                operation = m.group(1);
                missingData = false;
            } else if (line.startsWith("Missing communicator data")) {
                missingData = true;
            } else if ((m = GROUP.matcher(line)).find()) {
                group(Long.parseLong(m.group(2)), Integer.parseInt(m.group(1)), new ArrayList<>());
            } else if ((m = NONE.matcher(line)).find()) {
                group(0, Integer.parseInt(m.group(1)), new ArrayList<>());
            } else if ((m = ONE.matcher(line)).find()) {
                List<RasReport.Rank> one = new ArrayList<>();
                one.add(rank(Integer.parseInt(m.group(1)), m.group(3)));
                group(Long.parseLong(m.group(2)), 1, one);
                named = null;
            } else if ((m = MISSING_RANK.matcher(line)).find()) {
                missing.add(new RasReport.Rank(Integer.parseInt(m.group(1)), null, -1, -1));
            } else if ((m = RANK.matcher(line)).find()) {
                RasReport.Rank rank = rank(Integer.parseInt(m.group(1)), m.group(2));
                if (missingData) {
                    missing.add(rank);
                } else if (named != null) {
                    named.add(rank);
                }
            }
        }

        private void group(long count, int size, List<RasReport.Rank> ranks) {
            named = ranks;
            operations.computeIfAbsent(operation, op -> new ArrayList<>()).add(new RasReport.Launched(count, size, ranks));
        }

        private static RasReport.Rank rank(int rank, String where) {
            Matcher m = where == null ? null : WHERE.matcher(where);
            return m != null && m.find() ? new RasReport.Rank(rank, m.group(3), Long.parseLong(m.group(2)), Integer.parseInt(m.group(1)))
                    : new RasReport.Rank(rank, null, -1, -1);
        }
    }
}
