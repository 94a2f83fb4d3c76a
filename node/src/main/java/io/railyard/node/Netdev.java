package io.railyard.node;

/** A network interface from {@code /sys/class/net}. */
public record Netdev(String name, Attr<Integer> mtu, Attr<String> operState, Attr<String> pciAddress) {

    /** True when the kernel reports the interface up ({@code operstate} is up, or unknown for some virtual links). */
    public boolean isUp() {
        return operState.is(state -> state.equals("up") || state.equals("unknown"));
    }
}
