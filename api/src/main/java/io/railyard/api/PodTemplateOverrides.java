package io.railyard.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.util.List;
import java.util.Map;

/** What every pod of the job gets in addition. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PodTemplateOverrides {
    @JsonPropertyDescription("Node labels the pods require, besides railyard.io/rdma=true.")
    public Map<String, String> nodeSelector;

    @JsonPropertyDescription("The nodes the pods may run on, by name (default: any the other fields allow), e.g. the nodes a benchmark measures.")
    public List<String> nodeNames;

    @JsonPropertyDescription("Tolerations, e.g. for GPU node taints.")
    public List<Toleration> tolerations;

    @JsonPropertyDescription("More environment variables for the trainer.")
    public List<EnvVar> env;

    @JsonPropertyDescription("More volumes for the pods.")
    public List<Volume> volumes;

    @JsonPropertyDescription("Mounts of those volumes in the trainer.")
    public List<VolumeMount> volumeMounts;

    @JsonPropertyDescription("The pods' service account.")
    public String serviceAccountName;
}
