package io.railyard.cli;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** The output of an infiniband-diags tool: read from a saved file ({@code -} for stdin), or got by running the tool found on PATH. */
final class FabricInput {
    private static final int PIECE = 1 << 20;

    private FabricInput() {}

    static List<String> read(String option, String file) {
        try {
            return lines(file.equals("-") ? System.in.readAllBytes() : Files.readAllBytes(Path.of(file)));
        } catch (IOException e) {
            throw Railyard.UsageException.unreadable(option + " " + file, e);
        }
    }

    /**
     * The lines of UTF-8 text (any of \n, \r\n, \r ends one), each decoded alone, in parallel pieces of about a megabyte
     * that end after a newline: a large fabric's output is 10 to 20 MB. A newline byte is never part of another character.
     */
    static List<String> lines(byte[] bytes) throws CharacterCodingException {
        List<int[]> pieces = new ArrayList<>();
        for (int start = 0; start < bytes.length; ) {
            int end = Math.min(start + PIECE, bytes.length);
            while (end < bytes.length && bytes[end - 1] != '\n') {
                end++;
            }
            pieces.add(new int[] {start, end});
            start = end;
        }
        List<String> lines = pieces.parallelStream().flatMap(piece -> linesOf(bytes, piece[0], piece[1]).stream()).toList();
        if (lines.parallelStream().anyMatch(line -> line.indexOf('\uFFFD') >= 0)) {
            StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)); // says where, unless the text really holds U+FFFD
        }
        return lines;
    }

    private static List<String> linesOf(byte[] bytes, int from, int to) {
        List<String> lines = new ArrayList<>();
        int start = from;
        for (int i = from; i < to; i++) {
            if (bytes[i] == '\n' || bytes[i] == '\r') {
                lines.add(new String(bytes, start, i - start, StandardCharsets.UTF_8));
                i += bytes[i] == '\r' && i + 1 < to && bytes[i + 1] == '\n' ? 1 : 0;
                start = i + 1;
            }
        }
        if (start < to) {
            lines.add(new String(bytes, start, to - start, StandardCharsets.UTF_8));
        }
        return lines;
    }

    /** The tool's executable on PATH, if there is one. */
    static Optional<Path> onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, tool);
            if (Files.isExecutable(candidate) && !Files.isDirectory(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /**
     * Runs the tool (argv, no shell) and returns its standard output. Exit 0 is success, and so is ibqueryerrors' exit 1,
     * which means it found errors; anything else is one line naming the tool and the first line it printed on stderr.
     */
    static List<String> run(Path tool, List<String> args, int timeoutSeconds, boolean exitOneIsFindings) {
        String name = tool.getFileName().toString();
        List<String> command = new ArrayList<>(List.of(tool.toString()));
        command.addAll(args);
        try {
            Process process = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
            CompletableFuture<byte[]> stdout = drain(process.getInputStream());
            CompletableFuture<byte[]> stderr = drain(process.getErrorStream());
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new Railyard.UsageException(name + " did not finish within " + timeoutSeconds + " s: raise --timeout, or check the"
                        + " subnet manager (sminfo) and the umad device this node reaches the fabric through");
            }
            int exit = process.exitValue();
            if (exit != 0 && !(exit == 1 && exitOneIsFindings)) {
                String why = new String(stderr.join(), StandardCharsets.UTF_8).lines().filter(l -> !l.isBlank()).findFirst()
                        .orElse("no message");
                throw new Railyard.UsageException(name + " failed (exit " + exit + "): " + why
                        + " (run it on a node that sees the fabric, with access to /dev/infiniband/umad*)");
            }
            return new String(stdout.join(), StandardCharsets.UTF_8).lines().toList();
        } catch (IOException e) {
            throw new Railyard.UsageException(name + " cannot be started: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Railyard.UsageException(name + " was interrupted");
        }
    }

    /** On a thread of its own: the common pool has one thread on two cores, and two drains there would take turns. */
    private static CompletableFuture<byte[]> drain(InputStream stream) {
        return CompletableFuture.supplyAsync(() -> {
            try (InputStream in = stream) {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                in.transferTo(bytes);
                return bytes.toByteArray();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, task -> Thread.ofVirtual().name("railyard-drain").start(task));
    }
}
