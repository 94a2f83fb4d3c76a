package io.railyard.agent.health;

import java.time.Instant;

/**
 * One of the agent's Node conditions as it stands: problem-style, True while the problem is present (as Node Problem
 * Detector's are), with a CamelCase reason and a message naming the ports and the figures.
 */
public record NodeCondition(Type type, boolean status, String reason, String message, Instant lastTransitionTime) {
    /** The four condition types the agent owns; nothing else on the Node is ever written. */
    public enum Type {
        RdmaPortDown("PortNotActive", "AllPortsActive"),
        RdmaLinkFlapping("LinkFlapping", "LinksStable"),
        RdmaPortErrors("LinkErrorsRising", "ErrorsWithinLimits"),
        RdmaDeviceMissing("DeviceGone", "AllDevicesPresent");

        final String problem;
        final String clear;

        Type(String problem, String clear) {
            this.problem = problem;
            this.clear = clear;
        }
    }
}
