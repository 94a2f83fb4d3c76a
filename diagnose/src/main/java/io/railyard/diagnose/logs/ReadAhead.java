package io.railyard.diagnose.logs;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * A file's blocks of whole lines read by a thread of its own, a few blocks ahead of the analysis: the system calls that
 * copy a file into memory, and a gzip's inflating, run on another core. The analysis makes its strings straight from
 * the blocks, which are used again once read: no copy is added, and the threads meet a few hundred times a gigabyte.
 */
final class ReadAhead implements AutoCloseable {
    static final int BLOCK = 2 << 20;
    private static final int BLOCKS = 4;

    /** A block read, or the end of the input ({@code block} null), or the error that ended it. */
    private record Read(LineBlocks.Block block, IOException error) {}

    private final BlockingQueue<Read> full = new ArrayBlockingQueue<>(BLOCKS);
    private final BlockingQueue<byte[]> free = new ArrayBlockingQueue<>(BLOCKS);
    private final Thread reader;
    private LineBlocks.Block current;
    private boolean ended;

    ReadAhead(InputStream in) {
        this(in, BLOCK);
    }

    /** @param blockSize at least a window of the line reader's, so that a block holds a longest line */
    ReadAhead(InputStream in, int blockSize) {
        if (blockSize < LineReader.WINDOW) {
            throw new IllegalArgumentException("a block of " + blockSize + " bytes is smaller than a window");
        }
        LineBlocks blocks = new LineBlocks(in);
        reader = Thread.ofPlatform().daemon().name("railyard-read-ahead").start(() -> fill(blocks, blockSize));
    }

    private void fill(LineBlocks blocks, int blockSize) {
        int allocated = 0;
        try {
            while (true) {
                byte[] bytes = free.poll();
                if (bytes == null && allocated < BLOCKS) {
                    bytes = new byte[blockSize];
                    allocated++;
                } else if (bytes == null) {
                    bytes = free.take();
                }
                Read read;
                try {
                    read = new Read(blocks.fill(bytes), null);
                } catch (IOException e) {
                    read = new Read(null, e);
                } catch (RuntimeException | Error e) { // said to the analysis, which would otherwise wait for ever
                    read = new Read(null, new IOException(e));
                }
                full.put(read);
                if (read.block() == null) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            // closed: nobody reads on
        }
    }

    /** The next block, null at the input's end; the block before it is given back to be read into again. */
    LineBlocks.Block next() throws IOException {
        if (ended) {
            return null;
        }
        if (current != null) {
            free.add(current.bytes());
            current = null;
        }
        Read read;
        try {
            read = full.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while reading");
        }
        if (read.error() != null) {
            throw read.error();
        }
        current = read.block();
        ended = current == null;
        return current;
    }

    /** Stops the reading thread; the input it reads is its opener's to close. */
    @Override
    public void close() {
        reader.interrupt();
    }
}
