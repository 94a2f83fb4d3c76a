package io.railyard.diagnose.logs;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * One line of an input, as a range of a larger Latin-1 string (the bytes of the chunk being read): searches use the
 * JDK's vectorized {@code String.indexOf}, and a line becomes a String of its own only when it matters.
 * Valid until the reader moves on.
 */
public final class Line {
    private String chunk;
    private int start;
    private int end;
    private long number;
    private String text;

    /** Which pairs of adjacent characters the line has, hashed into 1,024 bits; computed on the first search. */
    private final long[] pairs = new long[PAIR_BITS / 64];
    private boolean pairsKnown;

    void reset(String chunk, int start, int end, long number) {
        this.chunk = chunk;
        this.start = start;
        this.end = end;
        this.number = number;
        this.text = null;
        this.pairsKnown = false;
    }

    /** The line number, from 1. */
    public long number() {
        return number;
    }

    public int length() {
        return end - start;
    }

    /**
     * Most lines of a log are searched for many words that are not there: one pass records the line's character pairs,
     * and a word one of whose first pairs the line lacks is not searched for at all (a 200-character line sets a fifth
     * of the 1,024 bits, so a word's first four pairs let about one absent word in a thousand through to the search).
     */
    public boolean contains(String needle) {
        int pairsToTest = Math.min(needle.length(), PAIRS_TESTED + 1);
        if (pairsToTest >= 2) {
            if (!pairsKnown) {
                recordPairs();
            }
            for (int i = 1; i < pairsToTest; i++) {
                if (!hasPair(pair(needle.charAt(i - 1), needle.charAt(i)))) {
                    return false;
                }
            }
        }
        return chunk.indexOf(needle, start, end) >= 0;
    }

    private static final int PAIRS_TESTED = 4;
    private static final int PAIR_BITS = 1024;
    /** Keeps a product's top log2(PAIR_BITS) bits. */
    private static final int PAIR_SHIFT = 32 - Integer.numberOfTrailingZeros(PAIR_BITS);

    /**
     * Words searched for together on every line, each with its first pairs' bits, and indexed by its first pair: see
     * {@link #containsAny}.
     */
    record Words(List<String> words, int[][] pairs, long[] firstPairs, int[][] byFirstPair, int[] unpaired) {
        static Words of(List<String> words) {
            int[][] pairs = new int[words.size()][];
            long[] firstPairs = new long[PAIR_BITS / 64];
            int[][] byFirstPair = new int[PAIR_BITS][0];
            int[] unpaired = new int[0];
            for (int n = 0; n < words.size(); n++) {
                String word = words.get(n);
                pairs[n] = new int[Math.max(0, Math.min(word.length(), PAIRS_TESTED + 1) - 1)];
                for (int i = 0; i < pairs[n].length; i++) {
                    pairs[n][i] = pair(word.charAt(i), word.charAt(i + 1));
                }
                if (pairs[n].length == 0) {
                    unpaired = append(unpaired, n);
                } else {
                    int first = pairs[n][0];
                    firstPairs[first >>> 6] |= 1L << first;
                    byFirstPair[first] = append(byFirstPair[first], n);
                }
            }
            return new Words(List.copyOf(words), pairs, firstPairs, byFirstPair, unpaired);
        }

        private static int[] append(int[] array, int value) {
            int[] longer = Arrays.copyOf(array, array.length + 1);
            longer[array.length] = value;
            return longer;
        }
    }

    /**
     * Whether the line holds one of the words. The words whose first pair the line has are found from the bits the two
     * share (a few words of dozens, on most lines none); only those are tested further, and searched for if their other
     * pairs are there too.
     */
    boolean containsAny(Words words) {
        if (!pairsKnown) {
            recordPairs();
        }
        for (int n : words.unpaired()) {
            if (chunk.indexOf(words.words().get(n), start, end) >= 0) {
                return true;
            }
        }
        long[] firstPairs = words.firstPairs();
        for (int i = 0; i < firstPairs.length; i++) {
            for (long shared = pairs[i] & firstPairs[i]; shared != 0; shared &= shared - 1) {
                for (int n : words.byFirstPair()[i * 64 + Long.numberOfTrailingZeros(shared)]) {
                    if (hasPairs(words.pairs()[n]) && chunk.indexOf(words.words().get(n), start, end) >= 0) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private boolean hasPairs(int[] wanted) {
        for (int pair : wanted) {
            if (!hasPair(pair)) {
                return false;
            }
        }
        return true;
    }

    private boolean hasPair(int pair) {
        return (pairs[pair >>> 6] & (1L << pair)) != 0;
    }

    private void recordPairs() {
        Arrays.fill(pairs, 0);
        for (int i = start + 1; i < end; i++) {
            int pair = pair(chunk.charAt(i - 1), chunk.charAt(i));
            pairs[pair >>> 6] |= 1L << pair;
        }
        pairsKnown = true;
    }

    /** A pair's bit: the pair mixed by a multiplication, its top bits (the plain sum left letter pairs colliding). */
    private static int pair(char first, char second) {
        return ((first << 8 | second) * 0x9E3779B1) >>> PAIR_SHIFT;
    }

    /** The position of the needle in the line at or after {@code from}, or -1. */
    public int indexOf(String needle, int from) {
        int at = chunk.indexOf(needle, start + Math.max(from, 0), end);
        return at < 0 ? -1 : at - start;
    }

    /** Whether the line has the needle at position {@code at}. */
    public boolean startsWith(String needle, int at) {
        return at >= 0 && start + at + needle.length() <= end && chunk.startsWith(needle, start + at);
    }

    /** The character at a position of the line. */
    public char charAt(int at) {
        return chunk.charAt(start + at);
    }

    /** The first character that is not a space or tab, or 0 for a blank line. */
    public char firstNonBlank() {
        for (int i = start; i < end; i++) {
            char c = chunk.charAt(i);
            if (c != ' ' && c != '\t') {
                return c;
            }
        }
        return 0;
    }

    /** The line as text (bytes as ISO-8859-1, so that any byte survives; the formats read here are ASCII). */
    public String text() {
        if (text == null) {
            text = chunk.substring(start, end);
        }
        return text;
    }

    /**
     * Text of a line as a person reads it: the bytes decoded as UTF-8 (hostnames, paths and messages in logs are), or
     * as they are when they are not UTF-8.
     */
    static String readable(String latin1) {
        if (latin1.chars().allMatch(c -> c < 0x80)) {
            return latin1;
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(latin1.getBytes(StandardCharsets.ISO_8859_1))).toString();
        } catch (CharacterCodingException e) {
            return latin1;
        }
    }
}
