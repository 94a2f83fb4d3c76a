package io.railyard.diagnose.logs;

/**
 * A channel's connection as NCCL logs it, {@code gpu-node-0:40000:41000 [0] NCCL INFO Channel 02/0 : 2[2] -> 10[2]
 * [send] via NET/IB/1/GDRDMA} (NCCL 2.3/2.4: {@code Ring 00 : ...}): which process said it, the channel, the ranks, the
 * direction, the network and the NIC's index.
 *
 * <p>Read by hand rather than by a regex: the first 4,096 such lines of a large log come while the JVM is still
 * compiling, and two regexes a line cost their matching and the compiling of the regex engine (bench/analyze-vs-grep.sh:
 * about 30 ms).
 */
record ConnectionLine(String process, String channel, String from, String to, boolean receive, String net, String nic) {

    /**
     * The first connection the text names, or null. As the regex {@code (?:Channel|Ring) (\d+)(?:/\d+)? :
     * (\d+)(?:\[\w+\])? -> (\d+)(?:\[\w+\])? \[(send|receive)\] via NET/([\w.]+)/(\d+)} found it.
     */
    static ConnectionLine find(String text) {
        int channel = text.indexOf("Channel ");
        int ring = text.indexOf("Ring ");
        while (channel >= 0 || ring >= 0) {
            boolean isChannel = ring < 0 || channel >= 0 && channel < ring;
            ConnectionLine found = isChannel ? at(text, channel + "Channel ".length()) : at(text, ring + "Ring ".length());
            if (found != null) {
                return found;
            }
            if (isChannel) {
                channel = text.indexOf("Channel ", channel + 1);
            } else {
                ring = text.indexOf("Ring ", ring + 1);
            }
        }
        return null;
    }

    private static ConnectionLine at(String text, int start) {
        int end = digits(text, start);
        if (end == start) {
            return null;
        }
        String channel = text.substring(start, end);
        int at = end < text.length() && text.charAt(end) == '/' && digits(text, end + 1) > end + 1 ? digits(text, end + 1) : end;
        if (!text.startsWith(" : ", at)) {
            return null;
        }
        int fromEnd = digits(text, at + 3);
        if (fromEnd == at + 3) {
            return null;
        }
        String from = text.substring(at + 3, fromEnd);
        at = afterBracketedWord(text, fromEnd);
        if (!text.startsWith(" -> ", at)) {
            return null;
        }
        int toEnd = digits(text, at + 4);
        if (toEnd == at + 4) {
            return null;
        }
        String to = text.substring(at + 4, toEnd);
        at = afterBracketedWord(text, toEnd);
        boolean receive = text.startsWith(" [receive]", at);
        if (!receive && !text.startsWith(" [send]", at)) {
            return null;
        }
        at += receive ? " [receive]".length() : " [send]".length();
        if (!text.startsWith(" via NET/", at)) {
            return null;
        }
        int netStart = at + " via NET/".length();
        int netEnd = netStart;
        while (netEnd < text.length() && (isWord(text.charAt(netEnd)) || text.charAt(netEnd) == '.')) {
            netEnd++;
        }
        int nicEnd = netEnd < text.length() && text.charAt(netEnd) == '/' ? digits(text, netEnd + 1) : netEnd + 1;
        if (netEnd == netStart || nicEnd <= netEnd + 1) {
            return null;
        }
        return new ConnectionLine(process(text), channel, from, to, receive, text.substring(netStart, netEnd), text.substring(netEnd + 1, nicEnd));
    }

    /**
     * {@code host:pid} of a line's {@code host:pid:tid [cudaDev]} prefix, or null: as the regex {@code
     * ^\s*(\S+):(\d+):\d+ \[\d+\]} found it, its host as long as it can be.
     */
    static String process(String text) {
        int start = 0;
        while (start < text.length() && isSpace(text.charAt(start))) {
            start++;
        }
        int end = start;
        while (end < text.length() && !isSpace(text.charAt(end))) {
            end++;
        }
        int device = end + 2;
        if (!text.startsWith(" [", end) || digits(text, device) == device || !text.startsWith("]", digits(text, device))) {
            return null;
        }
        int tid = text.lastIndexOf(':', end - 1);
        int pid = tid > start ? text.lastIndexOf(':', tid - 1) : -1;
        if (pid <= start || digits(text, tid + 1) != end || digits(text, pid + 1) != tid || pid + 1 == tid || tid + 1 == end) {
            return null;
        }
        return text.substring(start, tid);
    }

    /** Past an optional {@code [word]} at {@code at}: NCCL's {@code 2[c7000]} after a rank. */
    private static int afterBracketedWord(String text, int at) {
        if (at >= text.length() || text.charAt(at) != '[') {
            return at;
        }
        int end = at + 1;
        while (end < text.length() && isWord(text.charAt(end))) {
            end++;
        }
        return end > at + 1 && end < text.length() && text.charAt(end) == ']' ? end + 1 : at;
    }

    /** The end of the ASCII digits from {@code at}. */
    private static int digits(String text, int at) {
        int end = at;
        while (end < text.length() && text.charAt(end) >= '0' && text.charAt(end) <= '9') {
            end++;
        }
        return end;
    }

    private static boolean isWord(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_';
    }

    /** Java regex's \s. */
    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == 0x0B || c == '\f' || c == '\r';
    }
}
