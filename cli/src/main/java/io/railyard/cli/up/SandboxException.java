package io.railyard.cli.up;

/** Something {@code railyard up} or {@code down} cannot do; the message says what and what to do, in one line. */
public final class SandboxException extends RuntimeException {
    public SandboxException(String message) {
        super(message);
    }
}
