package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class TopoCommandTest {
    private static final Path REPO = Path.of(System.getProperty("railyard.repo", ".."));

    @Test
    void printsTheExampleNodesTopologyAsNcclReadsIt() throws Exception {
        CommandRun run = CommandRun.of("topo", "--root", REPO.resolve("examples/nodes/roce-8gpu").toString());

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).isEqualTo(Files.readString(REPO.resolve("testdata/topology/roce-8gpu.xml")));
    }

    @Test
    void anotherFormatIsOneLineAndExitTwo() {
        CommandRun run = CommandRun.of("topo", "--root", REPO.resolve("examples/nodes/roce-8gpu").toString(), "-o", "json");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).isEqualTo("topo: -o json: only xml is written (NCCL reads nothing else)\n");
    }
}
