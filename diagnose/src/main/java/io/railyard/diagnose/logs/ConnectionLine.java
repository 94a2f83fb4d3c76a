package io.railyard.diagnose.logs;

/**
 * A channel's connection as NCCL logs it, {@code gpu-node-0:40000:41000 [0] NCCL INFO Channel 02/0 : 2[2] -> 10[2]
 * [send] via NET/IB/1/GDRDMA} (NCCL 2.3/2.4: {@code Ring 00 : ...}): which process said it, the channel, the ranks and
 * the GPU each runs on (its CUDA device or bus id in brackets, where NCCL prints one), the direction, the network and the
 * NIC's index.
 *
 * <p>Read by hand rather than by a regex: the first 4,096 such lines of a large log come while the JVM is still
 * compiling, and two regexes a line cost their matching and the compiling of the regex engine (bench/analyze-vs-grep.sh:
 * about 30 ms).
 */
record ConnectionLine(String process, String channel, String from, String fromGpu, String to, String toGpu, boolean receive, String net,
        String nic) {

    /**
     * The first connection the text names, or null. As the regex {@code (?:Channel|Ring) (\d+)(?:/\d+)? :
     * (\d+)(?:\[(\w+)\])? -> (\d+)(?:\[(\w+)\])? \[(send|receive)\] via NET/([\w.]+)/(\d+)} found it.
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
        Cursor cursor = new Cursor(text, start);
        String channel = cursor.digits();
        if (channel == null || cursor.skip("/") && cursor.digits() == null || !cursor.skip(" : ")) {
            return null;
        }
        String from = cursor.digits();
        String fromGpu = from == null ? null : cursor.bracketedWord();
        if (from == null || !cursor.skip(" -> ")) {
            return null;
        }
        String to = cursor.digits();
        if (to == null) {
            return null;
        }
        String toGpu = cursor.bracketedWord();
        boolean receive = cursor.skip(" [receive]");
        if (!receive && !cursor.skip(" [send]") || !cursor.skip(" via NET/")) {
            return null;
        }
        String net = cursor.netName();
        if (net == null || !cursor.skip("/")) {
            return null;
        }
        String nic = cursor.digits();
        return nic == null ? null : new ConnectionLine(process(text), channel, from, fromGpu, to, toGpu, receive, net, nic);
    }

    /** A position in the text, moved past what is read; each read gives null, and does not move, where the text differs. */
    private static final class Cursor {
        private final String text;
        private int at;

        Cursor(String text, int at) {
            this.text = text;
            this.at = at;
        }

        boolean skip(String literal) {
            if (!text.startsWith(literal, at)) {
                return false;
            }
            at += literal.length();
            return true;
        }

        String digits() {
            return read(digitsEnd(text, at));
        }

        /** NCCL's optional {@code [word]} after a rank ({@code 2[c7000]}): the word, or null. */
        String bracketedWord() {
            int end = afterBracketedWord(text, at);
            if (end == at) {
                return null;
            }
            String word = text.substring(at + 1, end - 1);
            at = end;
            return word;
        }

        /** {@code [\w.]+}: the network's name in {@code NET/IB/1}. */
        String netName() {
            int end = at;
            while (end < text.length() && (isWord(text.charAt(end)) || text.charAt(end) == '.')) {
                end++;
            }
            return read(end);
        }

        private String read(int end) {
            if (end == at) {
                return null;
            }
            String read = text.substring(at, end);
            at = end;
            return read;
        }
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
        if (!text.startsWith(" [", end) || digitsEnd(text, device) == device || !text.startsWith("]", digitsEnd(text, device))) {
            return null;
        }
        int tid = text.lastIndexOf(':', end - 1);
        int pid = tid > start ? text.lastIndexOf(':', tid - 1) : -1;
        if (pid <= start || digitsEnd(text, tid + 1) != end || digitsEnd(text, pid + 1) != tid || pid + 1 == tid || tid + 1 == end) {
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
    private static int digitsEnd(String text, int at) {
        int end = at;
        while (end < text.length() && text.charAt(end) >= '0' && text.charAt(end) <= '9') {
            end++;
        }
        return end;
    }

    /** Java regex's {@code \w}, which {@code \b} also takes for a word's characters (JDK 19+): ASCII letters, digits and '_'. */
    static boolean isWord(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_';
    }

    /** Java regex's \s. */
    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == 0x0B || c == '\f' || c == '\r';
    }
}
