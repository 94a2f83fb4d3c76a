package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A large output is read in pieces: the lines are the ones a reader of the whole text sees, wherever the pieces end. */
class FabricInputTest {
    @TempDir
    Path dir;

    @Test
    void linesAcrossPiecesAreTheWholeTextsLines() throws Exception {
        StringBuilder text = new StringBuilder();
        String[] endings = {"\n", "\r\n", "\r", "\n\n", "\r\n\r\n"};
        for (int i = 0; text.length() < 3_500_000; i++) {
            text.append("[").append(i % 48).append("]\t\"H-043f720300e1a0").append(i % 97).append("\" # \"gpu-nöde-").append(i)
                    .append(" mlx5_0\" lid ").append(i).append(" 4xNDR ✓").append(endings[i % endings.length]);
        }
        text.append("last line without a newline é");
        byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);

        assertThat(FabricInput.lines(bytes)).isEqualTo(text.toString().lines().toList());
        // the text moved a byte at a time against where the first piece would end: some cut between \r and \n, or inside ö
        for (int shift = 0; shift < 24; shift++) {
            String shifted = "#" + "x".repeat(shift) + "\n" + text;
            assertThat(FabricInput.lines(shifted.getBytes(StandardCharsets.UTF_8))).as("shifted by %d", shift)
                    .isEqualTo(shifted.lines().toList());
        }
    }

    @Test
    void malformedUtf8IsRefusedAndAReplacementCharacterInTheTextIsNot() throws Exception {
        byte[] binary = {'S', 'w', 'i', 't', 'c', 'h', (byte) 0xC3, '(', '\n'};
        assertThatThrownBy(() -> FabricInput.lines(binary)).isInstanceOf(MalformedInputException.class);
        Path file = Files.write(dir.resolve("binary.txt"), binary);
        assertThatThrownBy(() -> FabricInput.read("--ibnetdiscover", file.toString())).isInstanceOf(Railyard.UsageException.class)
                .hasMessage("--ibnetdiscover " + file + ": not UTF-8 text (a binary file?)");

        assertThat(FabricInput.lines("a \uFFFD b\n".getBytes(StandardCharsets.UTF_8))).containsExactly("a \uFFFD b");
        assertThat(FabricInput.lines(new byte[0])).isEmpty();
    }
}
