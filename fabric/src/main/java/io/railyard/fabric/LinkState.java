package io.railyard.fabric;

/**
 * One port's line in iblinkinfo: its state, and the width and lane rate it trained at when up.
 *
 * @param guid the switch's node GUID, or the HCA's port GUID
 * @param laneGbps the per-lane rate iblinkinfo prints (53.125 for HDR); 0 when the port is down
 */
public record LinkState(Guid guid, String description, int port, String state, String physicalState, String width, double laneGbps,
        String line) {
    public boolean isUp() {
        return state.equalsIgnoreCase("Active") || state.equalsIgnoreCase("Armed") || state.equalsIgnoreCase("Initialize");
    }

    /** The lane speed's name for iblinkinfo's per-lane rate. */
    public String speed() {
        return LaneSpeed.name(laneGbps);
    }
}
