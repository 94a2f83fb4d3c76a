package io.railyard.cli.pictures;

/**
 * The one small writer of the pictures' SVG and HTML: elements with attributes given as name-value pairs, every
 * attribute value and text escaped. A null attribute value leaves the attribute out.
 */
final class Markup {
    private final StringBuilder out = new StringBuilder(1 << 16);

    /** {@code <tag a="b">}. */
    Markup open(String tag, Object... attributes) {
        start(tag, attributes);
        out.append(">");
        return this;
    }

    Markup close(String tag) {
        out.append("</").append(tag).append(">\n");
        return this;
    }

    /** {@code <tag a="b"/>}. */
    Markup empty(String tag, Object... attributes) {
        start(tag, attributes);
        out.append("/>\n");
        return this;
    }

    /** {@code <tag a="b">text</tag>}. */
    Markup element(String tag, String text, Object... attributes) {
        open(tag, attributes);
        escape(text, false);
        return close(tag);
    }

    Markup text(String text) {
        escape(text, false);
        return this;
    }

    /** Written as it is: markup this class made, or text that has nothing to escape (a style sheet of our own). */
    Markup raw(String markup) {
        out.append(markup);
        return this;
    }

    /** A whole HTML page: the pictures' one style sheet, the title as the heading, then the body given. */
    static String page(String title, String body) {
        return new Markup().raw("<!DOCTYPE html>\n").open("html", "lang", "en").open("head").empty("meta", "charset", "utf-8")
                .element("title", title).element("style", STYLE).close("head").open("body").element("h1", title)
                .raw(body).close("body").close("html").toString();
    }

    private static final String STYLE = "body{font-family:sans-serif;margin:16px;color:#222}"
            + ".picture{overflow-x:auto}svg{border:1px solid #ddd}"
            + "table{border-collapse:collapse;margin-top:8px}td,th{border:1px solid #ccc;padding:3px 6px;font-size:12px;text-align:left;vertical-align:top}"
            + "th{background:#f0f0f0}td.num{text-align:right}code{font-size:11px}.swatch{display:inline-block;width:10px;height:10px;margin-right:4px}";

    @Override
    public String toString() {
        return out.toString();
    }

    private void start(String tag, Object[] attributes) {
        out.append('<').append(tag);
        for (int i = 0; i < attributes.length; i += 2) {
            Object value = attributes[i + 1];
            if (value != null) {
                out.append(' ').append(attributes[i]).append("=\"");
                escape(value instanceof Double d ? number(d) : value.toString(), true);
                out.append('"');
            }
        }
    }

    /** Coordinates to a tenth of a pixel, without a trailing {@code .0}. */
    static String number(double value) {
        long tenths = Math.round(Math.abs(value) * 10);
        return (value < 0 && tenths != 0 ? "-" : "") + tenths / 10 + (tenths % 10 == 0 ? "" : "." + tenths % 10);
    }

    private void escape(String text, boolean attribute) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '&' -> out.append("&amp;");
                case '"' -> out.append(attribute ? "&quot;" : "\"");
                default -> out.append(c);
            }
        }
    }
}
