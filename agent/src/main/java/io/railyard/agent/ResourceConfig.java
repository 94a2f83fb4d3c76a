package io.railyard.agent;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.regex.Pattern;

/**
 * One extended resource: its name, whether each port is one device ({@code exclusive}) or several slots
 * ({@code shared}), which ports it holds, and whether its containers get the ports' umad nodes: raw management
 * datagrams to the fabric, which infiniband-diags need and a training job must not have.
 */
public record ResourceConfig(String name, Mode mode, int slotsPerPort, PortSelector selector, boolean managementDatagrams) {
    private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");

    public enum Mode {
        @JsonProperty("exclusive") EXCLUSIVE,
        @JsonProperty("shared") SHARED
    }

    @JsonCreator
    public ResourceConfig(
            @JsonProperty("name") String name,
            @JsonProperty("mode") Mode mode,
            @JsonProperty("slotsPerPort") Integer slotsPerPort,
            @JsonProperty("selector") PortSelector selector,
            @JsonProperty("managementDatagrams") Boolean managementDatagrams) {
        this(name == null ? AgentConfig.DEFAULT_RESOURCE : name,
                mode == null ? Mode.EXCLUSIVE : mode,
                slotsPerPort == null ? 1 : slotsPerPort,
                selector == null ? PortSelector.ANY : selector,
                Boolean.TRUE.equals(managementDatagrams));
    }

    public ResourceConfig {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("resource name '" + name + "' is not <domain>/<name> (e.g. rdma/rdma)");
        }
        if (mode == Mode.SHARED && slotsPerPort < 1) {
            throw new IllegalArgumentException("slotsPerPort must be at least 1 in shared mode");
        }
        if (mode == Mode.EXCLUSIVE && slotsPerPort != 1) {
            throw new IllegalArgumentException("slotsPerPort is only for mode: shared");
        }
    }

    static ResourceConfig defaults() {
        return new ResourceConfig(null, null, null, null, null);
    }

    /** The socket file name in the device plugin directory: {@code railyard-rdma-rdma.sock}. */
    public String socketName() {
        return "railyard-" + name.replaceAll("[^A-Za-z0-9]+", "-") + ".sock";
    }
}
