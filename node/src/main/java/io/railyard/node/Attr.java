package io.railyard.node;

import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;

/** One attribute of the machine: its value, or why it could not be read. */
public sealed interface Attr<T> permits Attr.Known, Attr.Unknown {

    /** A value read and parsed. */
    record Known<T>(T value) implements Attr<T> {
        public Known {
            Objects.requireNonNull(value, "value");
        }
    }

    /** A value that could not be read or parsed; the reason names the file and what was wrong. */
    record Unknown<T>(String reason) implements Attr<T> {}

    static <T> Attr<T> of(T value) {
        return new Known<>(value);
    }

    static <T> Attr<T> unknown(String reason) {
        return new Unknown<>(reason);
    }

    default boolean isKnown() {
        return this instanceof Known<T>;
    }

    default T orElse(T fallback) {
        return this instanceof Known<T>(T value) ? value : fallback;
    }

    /** The value; an unknown one throws with its reason. */
    default T orElseThrow() {
        return switch (this) {
            case Known<T>(T value) -> value;
            case Unknown<T>(String reason) -> throw new IllegalStateException(reason);
        };
    }

    /** Runs the action with the value when it is known. */
    default void ifKnown(java.util.function.Consumer<? super T> action) {
        if (this instanceof Known<T>(T value)) {
            action.accept(value);
        }
    }

    /** True only when the value is known and passes the test. */
    default boolean is(Predicate<? super T> test) {
        return this instanceof Known<T>(T value) && test.test(value);
    }

    default <R> Attr<R> map(Function<? super T, ? extends R> mapper) {
        return switch (this) {
            case Known<T>(T value) -> new Known<>(mapper.apply(value));
            case Unknown<T>(String reason) -> new Unknown<>(reason);
        };
    }

    default <R> Attr<R> flatMap(Function<? super T, Attr<R>> mapper) {
        return switch (this) {
            case Known<T>(T value) -> mapper.apply(value);
            case Unknown<T>(String reason) -> new Unknown<>(reason);
        };
    }

    /** The value as text, or {@code unknown (reason)}. */
    default String text() {
        return switch (this) {
            case Known<T>(T value) -> value.toString();
            case Unknown<T>(String reason) -> "unknown (" + reason + ")";
        };
    }
}
