package io.railyard.cli;

import com.fasterxml.jackson.core.Base64Variant;
import com.fasterxml.jackson.core.base.GeneratorBase;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * One YAML document in block style, written straight into a StringBuilder: the text jackson-dataformat-yaml writes
 * without line splitting (strings double-quoted, keys plain, sequences at their key's indent), which fabric8's
 * {@code Serialization.asYaml} prints too but for its folding of strings past 80 columns, without SnakeYAML's emitter
 * between them: its events and its analysis of
 * each scalar were most of render's time for a 12,500-node job. Keys that are not plain-safe are double-quoted.
 */
final class BlockYamlGenerator extends GeneratorBase {
    /** Where the value being written goes: after "key:", after "- ", or as the document itself. */
    private enum Position { AFTER_KEY, AFTER_DASH, DOCUMENT }

    /** An open mapping or sequence: the column of its keys or dashes, where it began, and whether it has a child yet. */
    private record Frame(boolean mapping, int column, Position position, boolean[] empty) {}

    private final StringBuilder out;
    private final Deque<Frame> frames = new ArrayDeque<>();
    private Position position = Position.DOCUMENT;
    /** The column of the key or dash the next value follows. */
    private int column;

    BlockYamlGenerator(StringBuilder out) {
        super(0, null);
        this.out = out;
    }

    @Override
    public void writeStartObject() {
        open(true);
        _writeContext = _writeContext.createChildObjectContext();
    }

    @Override
    public void writeStartArray() {
        open(false);
        _writeContext = _writeContext.createChildArrayContext();
    }

    private void open(boolean mapping) {
        beforeValue();
        int childColumn = switch (position) {
            case AFTER_KEY -> mapping ? column + 2 : column; // a sequence under a key starts at the key's column
            case AFTER_DASH -> column + 2;
            case DOCUMENT -> 0;
        };
        frames.push(new Frame(mapping, childColumn, position, new boolean[] {true}));
    }

    @Override
    public void writeEndObject() {
        close("{}");
    }

    @Override
    public void writeEndArray() {
        close("[]");
    }

    private void close(String empty) {
        Frame frame = frames.pop();
        _writeContext = _writeContext.clearAndGetParent();
        if (frame.empty()[0]) {
            out.append(switch (frame.position()) {
                case AFTER_KEY -> " " + empty;
                case AFTER_DASH -> empty;
                case DOCUMENT -> "--- " + empty;
            }).append('\n');
        }
        afterValue();
    }

    /** Before a key or an item: the line its parent began ends, or the first goes on the parent's dash line. */
    private void child(Frame frame) {
        boolean first = frame.empty()[0];
        frame.empty()[0] = false;
        if (first && frame.position() == Position.DOCUMENT) {
            out.append("---\n");
        } else if (first && frame.position() == Position.AFTER_KEY) {
            out.append('\n');
        }
        if (!(first && frame.position() == Position.AFTER_DASH)) {
            out.repeat(' ', frame.column());
        }
    }

    @Override
    public void writeFieldName(String name) throws java.io.IOException {
        _writeContext.writeFieldName(name);
        Frame frame = frames.peek();
        child(frame);
        if (plain(name)) {
            out.append(name);
        } else {
            quoted(name);
        }
        out.append(':');
        position = Position.AFTER_KEY;
        column = frame.column();
    }

    /** Whether a key is what Kubernetes names are made of (field names, label keys, resource names): written plain. */
    private static boolean plain(String key) {
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            boolean name = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_';
            if (!name && (i == 0 || c != '.' && c != '/' && c != '-')) {
                return false;
            }
        }
        return !key.isEmpty();
    }

    /** Where a value starts: an item of a sequence gets its dash first. */
    private void beforeValue() {
        _writeContext.writeValue();
        Frame frame = frames.peek();
        if (frame != null && !frame.mapping()) {
            child(frame);
            out.append("- ");
            position = Position.AFTER_DASH;
            column = frame.column();
        }
    }

    private void afterValue() {
        position = frames.isEmpty() ? Position.DOCUMENT : Position.AFTER_KEY;
    }

    private void scalar(String text, boolean quote) {
        beforeValue();
        out.append(switch (position) {
            case AFTER_KEY -> " ";
            case AFTER_DASH -> "";
            case DOCUMENT -> "--- ";
        });
        if (quote) {
            quoted(text);
        } else {
            out.append(text);
        }
        out.append('\n');
        afterValue();
    }

    /** A double-quoted scalar with YAML's escapes, the printable characters as they are. */
    private void quoted(String text) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\t' -> out.append("\\t");
                case '\r' -> out.append("\\r");
                case '\0' -> out.append("\\0");
                case '\u0007' -> out.append("\\a");
                case '\b' -> out.append("\\b");
                case '\u000B' -> out.append("\\v");
                case '\f' -> out.append("\\f");
                case '\u001B' -> out.append("\\e");
                case '\u0085' -> out.append("\\N");
                case '\u00A0' -> out.append("\\_");
                case '\u2028' -> out.append("\\L");
                case '\u2029' -> out.append("\\P");
                default -> {
                    if (c >= 0x20 && c <= 0x7E || c >= 0xA0 && c <= 0xD7FF || c >= 0xE000 && c <= 0xFFFD || Character.isSurrogate(c)) {
                        out.append(c);
                    } else if (c <= 0xFF) {
                        out.append(String.format("\\x%02x", (int) c)); // lower case, as SnakeYAML writes them
                    } else {
                        out.append(String.format("\\u%04x", (int) c));
                    }
                }
            }
        }
        out.append('"');
    }

    @Override
    public void writeString(String text) {
        if (text == null) {
            writeNull();
        } else {
            scalar(text, true);
        }
    }

    @Override
    public void writeString(char[] text, int offset, int length) {
        writeString(new String(text, offset, length));
    }

    @Override
    public void writeRawUTF8String(byte[] text, int offset, int length) {
        writeString(new String(text, offset, length, java.nio.charset.StandardCharsets.UTF_8));
    }

    @Override
    public void writeUTF8String(byte[] text, int offset, int length) {
        writeRawUTF8String(text, offset, length);
    }

    @Override
    public void writeNumber(int value) {
        scalar(Integer.toString(value), false);
    }

    @Override
    public void writeNumber(long value) {
        scalar(Long.toString(value), false);
    }

    @Override
    public void writeNumber(BigInteger value) {
        scalar(value.toString(), false);
    }

    @Override
    public void writeNumber(double value) {
        scalar(Double.toString(value), false);
    }

    @Override
    public void writeNumber(float value) {
        scalar(Float.toString(value), false);
    }

    @Override
    public void writeNumber(BigDecimal value) {
        scalar(value.toString(), false);
    }

    @Override
    public void writeNumber(String encoded) {
        scalar(encoded, false);
    }

    @Override
    public void writeBoolean(boolean value) {
        scalar(Boolean.toString(value), false);
    }

    @Override
    public void writeNull() {
        scalar("null", false);
    }

    @Override
    public void writeBinary(Base64Variant variant, byte[] data, int offset, int length) {
        throw new UnsupportedOperationException("binary values: no Kubernetes object render writes has one");
    }

    @Override
    public void writeRaw(String text) {
        throw new UnsupportedOperationException("raw YAML");
    }

    @Override
    public void writeRaw(String text, int offset, int length) {
        writeRaw(text);
    }

    @Override
    public void writeRaw(char[] text, int offset, int length) {
        writeRaw(new String(text, offset, length));
    }

    @Override
    public void writeRaw(char c) {
        writeRaw(String.valueOf(c));
    }

    @Override
    public void flush() {}

    @Override
    protected void _releaseBuffers() {}

    @Override
    protected void _verifyValueWrite(String typeMsg) {}
}
