package io.railyard.operator.preflight;

/**
 * One measured link: an HCA of the client node sending to the matching HCA of the server node.
 *
 * @param hca the client's HCA (null when its pod never ran)
 * @param serverHca the server's HCA, where its output named it
 * @param gbps ib_write_bw's average bandwidth, null when there was no result
 * @param lineRateGbps the slower end's line rate, null when unknown
 * @param percent gbps as a share of the line rate
 * @param reason why the link failed or is slow
 * @param blame the node whose own pod could not run (unschedulable, image, no RDMA device), null for a link problem
 */
public record Link(String client, String server, String hca, String serverHca, Double gbps, Double lineRateGbps, Double percent,
        Verdict verdict, String reason, String blame) {

    public enum Verdict {
        OK, SLOW, FAILED;

        @Override
        public String toString() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** A link with a result, judged against the minimum share of its line rate. */
    public static Link measured(String client, String server, String hca, String serverHca, double gbps, Double lineRateGbps,
            int minPercent) {
        Double percent = lineRateGbps == null || lineRateGbps <= 0 ? null : Math.round(gbps / lineRateGbps * 1000) / 10.0;
        boolean slow = percent != null && percent < minPercent;
        String reason = slow ? String.format("%.1f Gb/s is %.1f%% of the %s Gb/s line rate, below %d%%", gbps, percent,
                plain(lineRateGbps), minPercent) : percent == null ? "line rate unknown: not judged" : null;
        return new Link(client, server, hca, serverHca, gbps, lineRateGbps, percent, slow ? Verdict.SLOW : Verdict.OK, reason, null);
    }

    public static Link failed(String client, String server, String hca, String reason, String blame) {
        return new Link(client, server, hca, null, null, null, null, Verdict.FAILED, reason, blame);
    }

    /** 200.0 as 200, 12.5 as 12.5. */
    public static String plain(double gbps) {
        return gbps == Math.rint(gbps) ? String.valueOf((long) gbps) : String.valueOf(gbps);
    }

    public boolean ok() {
        return verdict == Verdict.OK;
    }

    public boolean touches(String node) {
        return node.equals(client) || node.equals(server);
    }

    public String peerOf(String node) {
        return node.equals(client) ? server : client;
    }
}
