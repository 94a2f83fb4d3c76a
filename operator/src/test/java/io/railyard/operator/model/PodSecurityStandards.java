package io.railyard.operator.model;

import io.fabric8.kubernetes.api.model.Capabilities;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.SeccompProfile;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Volume;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The Pod Security Standards' baseline and restricted controls (kubernetes.io/docs/concepts/security/pod-security-standards,
 * as Pod Security Admission enforces them), for the fields Railyard's pods set: what the API server of a namespace
 * labelled enforce=baseline or enforce=restricted would refuse. AppArmor, SELinux, /proc mount and sysctls are not
 * checked: Railyard sets none of them.
 */
final class PodSecurityStandards {
    /** The capabilities baseline allows a container to add. */
    private static final Set<String> BASELINE_CAPABILITIES = Set.of("AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL",
            "MKNOD", "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT");
    private static final Set<String> RESTRICTED_VOLUMES = Set.of("configMap", "csi", "downwardAPI", "emptyDir", "ephemeral",
            "persistentVolumeClaim", "projected", "secret");

    private PodSecurityStandards() {}

    /** The most restrictive level the pod passes: restricted, baseline or privileged. */
    static String level(PodSpec pod) {
        return !baseline(pod).isEmpty() ? "privileged" : restricted(pod).isEmpty() ? "restricted" : "baseline";
    }

    static List<String> baseline(PodSpec pod) {
        List<String> violations = new ArrayList<>();
        for (String namespace : List.of("hostNetwork", "hostPID", "hostIPC")) {
            Boolean shared = switch (namespace) {
                case "hostNetwork" -> pod.getHostNetwork();
                case "hostPID" -> pod.getHostPID();
                default -> pod.getHostIPC();
            };
            if (Boolean.TRUE.equals(shared)) {
                violations.add(namespace);
            }
        }
        for (Volume volume : volumes(pod)) {
            if (volume.getHostPath() != null) {
                violations.add("hostPath volume " + volume.getName());
            }
        }
        for (Container container : containers(pod)) {
            SecurityContext security = container.getSecurityContext();
            if (security != null && Boolean.TRUE.equals(security.getPrivileged())) {
                violations.add(container.getName() + ": privileged");
            }
            adds(security).stream().filter(cap -> !BASELINE_CAPABILITIES.contains(cap))
                    .forEach(cap -> violations.add(container.getName() + ": adds capability " + cap));
            if (container.getPorts() != null && container.getPorts().stream().anyMatch(p -> p.getHostPort() != null && p.getHostPort() != 0)) {
                violations.add(container.getName() + ": hostPort");
            }
            if (unconfined(security == null ? null : security.getSeccompProfile())) {
                violations.add(container.getName() + ": seccomp Unconfined");
            }
        }
        if (pod.getSecurityContext() != null && unconfined(pod.getSecurityContext().getSeccompProfile())) {
            violations.add("pod: seccomp Unconfined");
        }
        return violations;
    }

    /** restricted's controls beyond baseline's. */
    static List<String> restricted(PodSpec pod) {
        List<String> violations = new ArrayList<>();
        for (Volume volume : volumes(pod)) {
            if (Stream.of(volume.getConfigMap(), volume.getCsi(), volume.getDownwardAPI(), volume.getEmptyDir(), volume.getEphemeral(),
                    volume.getPersistentVolumeClaim(), volume.getProjected(), volume.getSecret()).allMatch(Objects::isNull)) {
                violations.add("volume " + volume.getName() + " is of a type restricted does not allow");
            }
        }
        PodSecurityContext podSecurity = pod.getSecurityContext();
        for (Container container : containers(pod)) {
            SecurityContext security = container.getSecurityContext();
            String name = container.getName();
            if (security == null || !Boolean.FALSE.equals(security.getAllowPrivilegeEscalation())) {
                violations.add(name + ": allowPrivilegeEscalation is not false");
            }
            boolean nonRoot = security != null && security.getRunAsNonRoot() != null ? security.getRunAsNonRoot()
                    : podSecurity != null && Boolean.TRUE.equals(podSecurity.getRunAsNonRoot());
            if (!nonRoot) {
                violations.add(name + ": runAsNonRoot is not true");
            }
            Long user = security != null && security.getRunAsUser() != null ? security.getRunAsUser() : podSecurity == null ? null : podSecurity.getRunAsUser();
            if (user != null && user == 0) {
                violations.add(name + ": runAsUser 0");
            }
            SeccompProfile seccomp = security != null && security.getSeccompProfile() != null ? security.getSeccompProfile()
                    : podSecurity == null ? null : podSecurity.getSeccompProfile();
            if (seccomp == null || !Set.of("RuntimeDefault", "Localhost").contains(seccomp.getType())) {
                violations.add(name + ": no RuntimeDefault or Localhost seccomp profile");
            }
            Capabilities capabilities = security == null ? null : security.getCapabilities();
            if (capabilities == null || capabilities.getDrop() == null || !capabilities.getDrop().contains("ALL")) {
                violations.add(name + ": does not drop ALL capabilities");
            }
            adds(security).stream().filter(cap -> !cap.equals("NET_BIND_SERVICE"))
                    .forEach(cap -> violations.add(name + ": adds capability " + cap));
        }
        return violations;
    }

    private static List<Volume> volumes(PodSpec pod) {
        return pod.getVolumes() == null ? List.of() : pod.getVolumes();
    }

    private static List<Container> containers(PodSpec pod) {
        return Stream.concat(pod.getInitContainers() == null ? Stream.of() : pod.getInitContainers().stream(),
                pod.getContainers() == null ? Stream.of() : pod.getContainers().stream()).toList();
    }

    private static List<String> adds(SecurityContext security) {
        return security == null || security.getCapabilities() == null || security.getCapabilities().getAdd() == null
                ? List.of() : security.getCapabilities().getAdd();
    }

    private static boolean unconfined(SeccompProfile profile) {
        return profile != null && "Unconfined".equals(profile.getType());
    }
}
