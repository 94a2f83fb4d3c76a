package io.railyard.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** CPU and memory per pod, set as requests and limits. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PodResources {
    @JsonPropertyDescription("CPU per pod, as a Kubernetes quantity (e.g. 96).")
    public String cpu;

    @JsonPropertyDescription("Memory per pod, as a Kubernetes quantity (e.g. 1600Gi).")
    public String memory;
}
