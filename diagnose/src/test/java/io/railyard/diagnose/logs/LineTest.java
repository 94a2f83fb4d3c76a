package io.railyard.diagnose.logs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A line's searches, which skip the words its character pairs rule out, find what String.contains finds. */
class LineTest {

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void containsAndContainsAnyAgreeWithAPlainSearch(long seed) throws IOException {
        Random random = new Random(seed);
        String alphabet = "abcdeRDMA _:/-0123456789"; // few letters: words and lines share pairs often
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            lines.add(text(random, alphabet, random.nextInt(120)));
        }
        List<List<String>> wordSets = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            List<String> words = new ArrayList<>();
            for (int n = 1 + random.nextInt(30); n > 0; n--) {
                words.add(text(random, alphabet, 1 + random.nextInt(random.nextBoolean() ? 3 : 8))); // one-letter words too
            }
            wordSets.add(words);
        }
        List<Line.Words> compiled = wordSets.stream().map(Line.Words::of).toList();
        int[] found = new int[1];
        long read = LineReader.forEachLine(new ByteArrayInputStream(String.join("\n", lines).getBytes(StandardCharsets.ISO_8859_1)), line -> {
            String text = lines.get((int) line.number() - 1);
            for (int i = 0; i < wordSets.size(); i++) {
                boolean expected = wordSets.get(i).stream().anyMatch(text::contains);
                assertThat(line.containsAny(compiled.get(i))).as("%s in '%s'", wordSets.get(i), text).isEqualTo(expected);
                found[0] += expected ? 1 : 0;
                String word = wordSets.get(i).getFirst();
                assertThat(line.contains(word)).as("'%s' in '%s'", word, text).isEqualTo(text.contains(word));
            }
        });

        assertThat(read).isEqualTo(lines.size());
        assertThat(found[0]).as("lines holding one of the words").isBetween(lines.size(), lines.size() * wordSets.size() - lines.size());
    }

    private static String text(Random random, String alphabet, int length) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < length; i++) {
            text.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return text.toString();
    }
}
