package io.railyard.fabric;

/** Tool output that cannot be read as what it was given as; the message says what is wrong with it. */
public final class FabricInputException extends RuntimeException {
    public FabricInputException(String message) {
        super(message);
    }
}
