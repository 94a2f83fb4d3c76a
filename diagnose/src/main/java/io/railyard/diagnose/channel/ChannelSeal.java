package io.railyard.diagnose.channel;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The seal on a message between a job's own Railyard containers (the attempt barrier, the speed gatherer): an
 * HMAC-SHA256, under the job's key (its Secret, mounted into those containers only), of the message, the job's UID and
 * the attempt it belongs to. A sealed line is the message, a space and {@code mac=<64 hex digits>}; a message from
 * anyone without the key, of another job, or of another attempt does not open.
 */
public final class ChannelSeal {
    private static final String MARK = " mac=";
    private static final int MAC_HEX = 64;

    private final byte[] key;
    private final String jobUid;

    private ChannelSeal(byte[] key, String jobUid) {
        this.key = key.clone();
        this.jobUid = jobUid;
    }

    /** The job's key from its mounted Secret; a file that is missing or shorter than 16 bytes is an error that names it. */
    public static ChannelSeal load(Path keyFile, String jobUid) throws IOException {
        byte[] key = Files.readAllBytes(keyFile);
        if (key.length < 16) {
            throw new IOException(keyFile + " holds " + key.length + " bytes: the job's channel key is 32 random bytes from its Secret");
        }
        return new ChannelSeal(key, jobUid == null ? "" : jobUid);
    }

    public static ChannelSeal of(byte[] key, String jobUid) {
        return new ChannelSeal(key, jobUid);
    }

    /** The message with its seal for this attempt; the message holds no line break. */
    public String seal(String message, long attempt) {
        return message + MARK + HexFormat.of().formatHex(mac(message, attempt));
    }

    /** The message a sealed line carries, when its seal is this job's for this attempt; empty for anything else. */
    public Optional<String> open(String line, long attempt) {
        if (line == null) {
            return Optional.empty();
        }
        int mark = line.lastIndexOf(MARK);
        if (mark < 0 || line.length() != mark + MARK.length() + MAC_HEX) {
            return Optional.empty();
        }
        String message = line.substring(0, mark);
        byte[] given;
        try {
            given = HexFormat.of().parseHex(line, mark + MARK.length(), line.length());
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        return MessageDigest.isEqual(given, mac(message, attempt)) ? Optional.of(message) : Optional.empty();
    }

    private byte[] mac(String message, long attempt) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal((message + "\n" + jobUid + "\n" + attempt).getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }
}
