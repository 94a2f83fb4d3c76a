package io.railyard.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;

/** How often the gang restarts, how long it may run, and when it is deleted. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RunPolicy {
    @Min(0)
    @JsonPropertyDescription("Gang restarts before the job fails (default 3).")
    public Integer backoffLimit;

    @Min(1)
    @JsonPropertyDescription("Seconds the job may run before it fails with DeadlineExceeded.")
    public Long activeDeadlineSeconds;

    @Min(0)
    @JsonPropertyDescription("Seconds after the job finished before it is deleted.")
    public Long ttlSecondsAfterFinished;
}
