package io.railyard.operator.model;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.railyard.api.TrainingJob;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;

/**
 * The job's key for its own channels, the attempt barrier and the speed gatherer: 32 random bytes in a Secret the job
 * owns (deleted with it), mounted read-only into Railyard's containers that talk to each other, never into the trainer.
 * Each message on those channels is sealed with it, the job's UID and the attempt.
 */
public final class ChannelKey {
    static final String VOLUME = "channel-key";
    static final String DIR = "/var/run/railyard/channel";
    static final String FILE = DIR + "/key";
    static final String JOB_UID_ENV = "RAILYARD_JOB_UID";
    private static final String DATA = "key";
    private static final SecureRandom RANDOM = new SecureRandom();

    private ChannelKey() {}

    public static String secretName(String job) {
        return job + "-channel";
    }

    /** Whether the job's pods talk to each other through Railyard: its attempt barrier or its speed gatherer. */
    public static boolean needed(TrainingJob job, OperatorDefaults defaults) {
        return RestartStrategies.inPlace(job.getSpec(), defaults.inPlaceRestart()) || InspectorSidecar.enabled(job.getSpec());
    }

    /** A new key: made once for the job, never written anywhere but its Secret. */
    public static Secret secret(TrainingJob job) {
        byte[] key = new byte[32];
        RANDOM.nextBytes(key);
        return new SecretBuilder().withMetadata(Ownership.metadata(job, secretName(job.getMetadata().getName()))).withType("Opaque")
                .addToData(DATA, Base64.getEncoder().encodeToString(key)).withImmutable(true).build();
    }

    static Volume volume(JobSettings settings) {
        return new VolumeBuilder().withName(VOLUME).withNewSecret().withSecretName(secretName(settings.name())).withDefaultMode(0444)
                .addNewItem().withKey(DATA).withPath(DATA).endItem().endSecret().build();
    }

    static VolumeMount mount() {
        return new VolumeMountBuilder().withName(VOLUME).withMountPath(DIR).withReadOnly(true).build();
    }

    /** What a container of Railyard's that seals its messages is given: the key's file. */
    static List<String> args() {
        return List.of("--channel-key=" + FILE);
    }

    /** And the job's UID, part of every seal. */
    static EnvVar jobUid(JobSettings settings) {
        return new EnvVarBuilder().withName(JOB_UID_ENV).withValue(settings.uid()).build();
    }
}
