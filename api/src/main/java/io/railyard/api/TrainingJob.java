package io.railyard.api;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.util.ArrayList;
import java.util.List;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/** A distributed PyTorch job over RDMA: one pod per node, all of its GPUs, started and restarted as a gang. */
@Group(Names.GROUP)
@Version(Names.VERSION)
@ShortNames("tj")
@AdditionalPrinterColumn(name = "Phase", jsonPath = ".status.phase", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Nodes", jsonPath = ".spec.nodes", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "GPUs", jsonPath = ".status.gpus", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Restarts", jsonPath = ".status.restarts", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Spares", jsonPath = ".status.spares.ready", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "RDMA", jsonPath = ".status.rdma.verified", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class TrainingJob extends CustomResource<TrainingJobSpec, TrainingJobStatus> implements Namespaced {
    /** Fields or values of the stored object the classes here could not read, by path; never written back. */
    @JsonIgnore
    private final transient List<String> unreadFields = new ArrayList<>();

    /** What of this object could not be read ({@code spec.elasticPolicy: unknown field}): empty for a job read whole. */
    public List<String> unreadFields() {
        return unreadFields;
    }
}
