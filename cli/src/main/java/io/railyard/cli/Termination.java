package io.railyard.cli;

import java.util.concurrent.CountDownLatch;
import sun.misc.Signal;

/** Waits for SIGTERM or SIGINT, so that a long-running command can clean up and exit 0. */
final class Termination {
    private final CountDownLatch signalled = new CountDownLatch(1);

    /** Installs the handlers; call before starting anything that must be cleaned up. */
    static Termination listen() {
        Termination termination = new Termination();
        Signal.handle(new Signal("TERM"), signal -> termination.signalled.countDown());
        Signal.handle(new Signal("INT"), signal -> termination.signalled.countDown());
        return termination;
    }

    void await() throws InterruptedException {
        signalled.await();
    }

    /** Waits up to a time; true when a signal came. */
    boolean await(java.time.Duration time) throws InterruptedException {
        return signalled.await(time.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
    }
}
