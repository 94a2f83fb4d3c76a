package io.railyard.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;

/** What watches the job while it runs. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class MonitoringSpec {
    @JsonPropertyDescription("A sidecar in the first pod polls NCCL's RAS service (NCCL 2.24+) and the operator sets the Stalled condition from it.")
    public HangDetection hangDetection;

    /** The nccl-watch sidecar's settings. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class HangDetection {
        @JsonPropertyDescription("On unless false.")
        public Boolean enabled;

        @Min(5)
        @Max(3600)
        @JsonPropertyDescription("Seconds between RAS polls (default 30); polling often has crashed NCCL.")
        public Integer intervalSeconds;

        @Min(30)
        @JsonPropertyDescription("Seconds without any collective count moving, with a rank behind or missing, before the job is Stalled (default 300).")
        public Integer stallAfterSeconds;

        @JsonPropertyDescription("Restart the gang when it is stalled or a rank is missing, blaming the node when one node holds the named ranks (default false).")
        public Boolean restart;
    }
}
