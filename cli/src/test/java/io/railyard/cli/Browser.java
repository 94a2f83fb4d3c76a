package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.testkit.Chromium;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/** Debian's chromium for the pictures' tests: required under CI ({@code RAILYARD_CI}), skipped elsewhere without it. */
final class Browser {
    private Browser() {}

    static Chromium start() throws IOException, InterruptedException {
        Optional<Path> found = Arrays.stream(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .map(dir -> Path.of(dir, "chromium")).filter(Files::isExecutable).findFirst();
        if (found.isEmpty()) {
            String message = "chromium is not on PATH (.ci/run installs it with apt-get)";
            if (System.getenv("RAILYARD_CI") != null) {
                Assertions.fail(message);
            }
            Assumptions.abort(message);
        }
        return Chromium.start(found.get(), 1400, 900);
    }

    /** The screenshot is a picture: mostly page, some ink, and at least one pixel of each colour given (#rrggbb). */
    static void assertDrawn(byte[] png, String... colours) throws IOException {
        BufferedImage image = ImageIO.read(new ByteArrayInputStream(png));
        long ink = 0;
        boolean[] seen = new boolean[colours.length];
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                int rgb = image.getRGB(x, y) & 0xffffff;
                if (rgb != 0xffffff) {
                    ink++;
                }
                for (int i = 0; i < colours.length; i++) {
                    seen[i] |= near(rgb, Integer.parseInt(colours[i].substring(1), 16));
                }
            }
        }
        double share = (double) ink / ((long) image.getWidth() * image.getHeight());
        assertThat(share).as("share of the screenshot that is not white").isBetween(0.02, 0.9);
        for (int i = 0; i < colours.length; i++) {
            assertThat(seen[i]).as("a pixel of " + colours[i] + " in the screenshot").isTrue();
        }
    }

    private static boolean near(int a, int b) {
        return Math.abs((a >> 16) - (b >> 16)) < 12 && Math.abs((a >> 8 & 0xff) - (b >> 8 & 0xff)) < 12 && Math.abs((a & 0xff) - (b & 0xff)) < 12;
    }
}
