package io.railyard.diagnose.ras;

import java.util.List;

/**
 * What one NCCL RAS status report says, from its JSON (2.28.7+) or its text (2.24+): each communicator's collective
 * launch counts by operation, grouped by count, and the ranks and processes that did not answer or are dead. The text
 * report names only the ranks of the minority group; the JSON names every rank.
 */
public record RasReport(String ncclVersion, List<Communicator> communicators, List<Group> groups, List<Rank> unresponsive, List<Rank> dead) {

    /** A rank of a communicator (or, with rank -1, a process) with its bootstrap address; pid and GPU -1 when unknown. */
    public record Rank(int rank, String host, long pid, int cudaDev) {
        /** As a person names it: {@code rank 21 on 172.16.64.213 (process 3487984, GPU 5)}; without a rank, by its process. */
        public String describe() {
            String gpu = cudaDev >= 0 ? "GPU " + cudaDev : "";
            if (rank < 0) {
                return "process " + pid + (host == null ? "" : " on " + host) + (gpu.isEmpty() ? "" : " (" + gpu + ")");
            }
            String process = pid >= 0 ? "process " + pid + (gpu.isEmpty() ? "" : ", " + gpu) : gpu;
            return "rank " + rank + (host == null ? "" : " on " + host) + (process.isEmpty() ? "" : " (" + process + ")");
        }
    }

    /** Ranks that launched up to the same count of one operation; {@code named} may list fewer than {@code size}. */
    public record Launched(long count, int size, List<Rank> named) {}

    /** @param id the communicator's hash as RAS prints it, without 0x and padding */
    public record Communicator(String id, int size, java.util.Map<String, List<Launched>> operations, List<Rank> missing) {}

    /** A row of the text report's communicator table: communicators of one shape and state. */
    public record Group(int ranksPerComm, int ranksInGroup, String status, String errors) {}

    /** A group below its operation's highest count in its communicator. */
    public record Behind(String communicator, String operation, long highest, Launched group) {}

    /** The groups below their operation's highest count, whichever group the report chose to detail. */
    public List<Behind> behind() {
        List<Behind> behind = new java.util.ArrayList<>();
        for (Communicator comm : communicators) {
            comm.operations().forEach((op, groups) -> {
                long highest = groups.stream().mapToLong(Launched::count).max().orElse(0);
                groups.stream().filter(g -> g.count() < highest).forEach(g -> behind.add(new Behind(comm.id(), op, highest, g)));
            });
        }
        return behind;
    }

    /** The job's ranks as far as the report tells: the largest communicator; 0 when it does not say. */
    public int ranks() {
        int fromComms = communicators.stream().mapToInt(Communicator::size).max().orElse(0);
        return Math.max(fromComms, groups.stream().mapToInt(Group::ranksPerComm).max().orElse(0));
    }
}
