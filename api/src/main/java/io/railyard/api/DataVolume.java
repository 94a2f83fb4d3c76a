package io.railyard.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;

/** A volume for data or a model: a PVC, a host path or an empty dir, optionally filled by a loader first. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "[has(self.claimName), has(self.hostPath), has(self.emptyDir) && self.emptyDir].filter(x, x).size() == 1",
        message = "exactly one of claimName, hostPath or emptyDir must be set")
public class DataVolume {
    @JsonPropertyDescription("A PersistentVolumeClaim to mount.")
    public String claimName;

    @JsonPropertyDescription("A directory of the node to mount.")
    public String hostPath;

    @JsonPropertyDescription("An empty directory, for a loader to fill.")
    public Boolean emptyDir;

    @Required
    @JsonPropertyDescription("Where the trainer and the loader see the volume.")
    public String mountPath;

    @JsonPropertyDescription("Mount read-only in the trainer (default true for hostPath and claims).")
    public Boolean readOnly;

    @JsonPropertyDescription("An init container that fills the volume before training starts.")
    public Loader loader;

    /** An init container that fills a volume. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Loader {
        @Required
        @JsonPropertyDescription("The loader's image.")
        public String image;

        @JsonPropertyDescription("The loader's command, as argv.")
        public java.util.List<String> command;
    }
}
