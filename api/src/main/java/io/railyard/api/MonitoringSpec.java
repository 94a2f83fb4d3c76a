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

    @JsonPropertyDescription("NCCL Inspector (NCCL 2.30+ with its profiler plugin in the image) measures every collective on every rank; a sidecar of"
            + " each pod serves each interval's bus bandwidth on /metrics. Off unless enabled.")
    public NcclInspector ncclInspector;

    /** The Inspector plugin's and the nccl-speed sidecar's settings. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class NcclInspector {
        @JsonPropertyDescription("Off unless true.")
        public Boolean enabled;

        @Min(5)
        @Max(3600)
        @JsonPropertyDescription("Seconds between the plugin's dumps and the sidecar's summaries (default 30).")
        public Integer intervalSeconds;

        @Min(1)
        @Max(100)
        @JsonPropertyDescription("A rank below this share of the job's median bus bandwidth is slow (default 80).")
        public Integer slowPercent;

        @Min(1)
        @Max(100)
        @JsonPropertyDescription("Intervals in a row before a rank or the job is called slow, and before it is fast again (default 3).")
        public Integer windows;

        @JsonPropertyDescription("NCCL_PROFILER_PLUGIN: the plugin's name or path in the image (default inspector, which NCCL resolves to"
                + " libnccl-profiler-inspector.so).")
        public String plugin;
    }

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
