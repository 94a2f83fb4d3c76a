package io.railyard.operator.model;

import io.fabric8.kubernetes.api.model.Volume;
import io.railyard.api.DataVolume;
import io.railyard.api.TrainingJob;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The node directories a TrainingJob mounts (hostPath datasets and models, hostPath volumes of its pod template),
 * against the operator's {@code --allowed-host-paths}. None is allowed by default: whoever may create a TrainingJob
 * would otherwise mount any directory of the node, its root included, through the operator's own rights.
 */
public final class HostPaths {
    private HostPaths() {}

    /** One line per hostPath of the job outside every allowed prefix, naming the field. */
    public static List<String> disallowed(TrainingJob job, List<String> allowed) {
        List<String> problems = new ArrayList<>();
        if (job.getSpec() == null) {
            return problems;
        }
        check(problems, "spec.dataset.hostPath", hostPath(job.getSpec().dataset), allowed);
        check(problems, "spec.model.hostPath", hostPath(job.getSpec().model), allowed);
        List<Volume> volumes = job.getSpec().podTemplate == null || job.getSpec().podTemplate.volumes == null
                ? List.of() : job.getSpec().podTemplate.volumes;
        for (int i = 0; i < volumes.size(); i++) {
            Volume volume = volumes.get(i);
            check(problems, "spec.podTemplate.volumes[" + i + "].hostPath.path",
                    volume.getHostPath() == null ? null : String.valueOf(volume.getHostPath().getPath()), allowed);
        }
        return problems;
    }

    /** Whether the path is one of the prefixes or below one, compared by whole path elements after "..", "." are resolved. */
    static boolean allowed(String path, List<String> prefixes) {
        if (!path.startsWith("/")) {
            return false;
        }
        Path normalized = Path.of(path).normalize();
        return prefixes.stream().map(prefix -> Path.of(prefix).normalize()).anyMatch(normalized::startsWith);
    }

    private static String hostPath(DataVolume volume) {
        return volume == null ? null : volume.hostPath;
    }

    private static void check(List<String> problems, String field, String path, List<String> allowed) {
        if (path != null && !allowed(path, allowed)) {
            problems.add(field + ": " + path + " is not under the operator's --allowed-host-paths ("
                    + (allowed.isEmpty() ? "none allowed" : String.join(", ", allowed))
                    + "): use a PersistentVolumeClaim, or have the operator started with a prefix that covers it");
        }
    }
}
