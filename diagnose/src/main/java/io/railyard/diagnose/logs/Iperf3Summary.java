package io.railyard.diagnose.logs;

/**
 * What an iperf3 run reported, in its text or JSON ({@code -J}) form; each figure null where the output did not hold it.
 *
 * @param sentGbps the sender's total over the test, Gb/s ({@code sum_sent}, the {@code [SUM]} or only stream's sender line)
 * @param receivedGbps the receiver's total, Gb/s
 * @param retransmits the sender's TCP retransmissions
 * @param localCpuPercent this end's iperf3 process: user and system time over the test's wall time, in percent of one CPU
 * @param remoteCpuPercent the other end's, as it reported it
 * @param streams parallel streams ({@code -P})
 * @param sender whether this end sent (a client unless {@code -R}); null when the output does not say
 */
public record Iperf3Summary(Double sentGbps, Double receivedGbps, Long retransmits, Double localCpuPercent, Double remoteCpuPercent,
        Integer streams, Boolean sender) {}
