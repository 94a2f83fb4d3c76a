package io.railyard.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;

/** Who schedules the gang, in which queue and priority, and how ranks follow the network topology. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SchedulingSpec {
    /** The gang scheduler. */
    public enum Scheduler {
        @JsonProperty("default") DEFAULT,
        @JsonProperty("volcano") VOLCANO,
        @JsonProperty("kueue") KUEUE,
        @JsonProperty("kubernetes") KUBERNETES
    }

    @JsonPropertyDescription("default (no gang: pods can deadlock), volcano (PodGroup), kueue (queue label and pod group) or kubernetes"
            + " (the cluster's own Workload and PodGroup, scheduling.k8s.io/v1beta1).")
    public Scheduler scheduler;

    @JsonPropertyDescription("The Volcano queue or Kueue LocalQueue.")
    public String queue;

    @JsonPropertyDescription("The pods' priority class.")
    public String priorityClassName;

    @JsonPropertyDescription("Node label keys, outermost first (e.g. spine, leaf), that order the ranks once the gang is placed.")
    public List<String> topologyKeys;

    @JsonPropertyDescription("Place the whole gang under one domain of a node label: scheduler kueue (its topology-aware scheduling), or volcano"
            + " (railyard.io/ib-leaf or railyard.io/ib-spine-group: one HyperNode of tier 1 or 2).")
    public TopologyRequest topology;
}
