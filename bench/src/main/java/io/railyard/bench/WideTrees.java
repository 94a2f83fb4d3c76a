package io.railyard.bench;

import io.railyard.testkit.ExampleNodes;
import java.nio.file.Path;

/** Writes the trees the exporter benchmark scrapes: 8-port and 64-port RoCE and InfiniBand nodes. */
public final class WideTrees {
    private WideTrees() {}

    public static void main(String[] args) {
        Path dir = Path.of(args[0]);
        ExampleNodes.wide(dir.resolve("roce-8port"), false, 2);
        ExampleNodes.wide(dir.resolve("roce-64port"), false, 16);
        ExampleNodes.wide(dir.resolve("ib-64port"), true, 16);
    }
}
