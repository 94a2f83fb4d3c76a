package io.railyard.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.slf4j.LoggerFactory;

/** The log level of the long-running commands (agent, operator). */
final class ServiceLog {
    private ServiceLog() {}

    /**
     * Railyard's own lines at INFO (what it advertises, every health change, every phase change), the libraries'
     * at the level of logback.xml (WARN); {@code RAILYARD_LOG_LEVEL} sets both. One-shot commands stay quiet.
     */
    static void railyardAtInfo() {
        if (System.getenv("RAILYARD_LOG_LEVEL") == null) {
            ((Logger) LoggerFactory.getLogger("io.railyard")).setLevel(Level.INFO);
        }
    }
}
