package io.railyard.cli;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.File;
import java.io.IOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLException;
import picocli.CommandLine.Option;

/**
 * The {@code --kubeconfig} option, and a client from it or from the usual places (KUBECONFIG, ~/.kube/config,
 * in-cluster): found or not in one step, reachable or not within the connect timeout, each answered in one line.
 */
final class KubeClients {
    static final Path SERVICE_ACCOUNT_TOKEN = Path.of("/var/run/secrets/kubernetes.io/serviceaccount/token");
    private static final int CONNECT_TIMEOUT_MILLIS = 3_000;
    private static final int REQUEST_TIMEOUT_MILLIS = 10_000;

    /** The credentials this process connected with: a failure after the first call names their user too. */
    private static volatile Config connected;

    @Option(names = "--kubeconfig", description = "Kubeconfig file (default: KUBECONFIG, ~/.kube/config, else in-cluster).")
    Path kubeconfig;

    /** The Kubernetes API could not be reached or refused who we are; the message names the server and why. */
    static final class ClusterException extends RuntimeException {
        ClusterException(String message) {
            super(message);
        }
    }

    KubernetesClient connect() {
        return connect(kubeconfig);
    }

    static KubernetesClient connect(Path kubeconfig) {
        return connect(kubeconfig, new KubernetesSerialization());
    }

    /** The same, reading and writing objects through the serialization given. */
    KubernetesClient connect(KubernetesSerialization serialization) {
        return connect(kubeconfig, serialization);
    }

    /** A client for a process that runs for long: not asked anything yet, so an API server down now is tried again later; null without credentials. */
    static KubernetesClient client(Path kubeconfig) {
        Config config = config(kubeconfig, System.getenv());
        return config == null ? null : new KubernetesClientBuilder().withConfig(config).build();
    }

    /** A client that has answered once (GET /version), so that a command fails before it starts its work. */
    static KubernetesClient connect(Path kubeconfig, KubernetesSerialization serialization) {
        Config config = config(kubeconfig, System.getenv());
        if (config == null) {
            throw new Railyard.UsageException("no Kubernetes cluster to talk to: KUBECONFIG is not set, ~/.kube/config does not exist and"
                    + " there is no in-cluster service account; give --kubeconfig FILE or set KUBECONFIG");
        }
        connected = config;
        KubernetesClient client = new KubernetesClientBuilder().withConfig(config).withKubernetesSerialization(serialization).build();
        try {
            client.getKubernetesVersion();
            return client;
        } catch (KubernetesClientException e) {
            client.close();
            throw unreachable(config, e);
        }
    }

    /**
     * The first credentials found: the kubeconfig given, else KUBECONFIG's files merged as kubectl merges them, else
     * ~/.kube/config, else the in-cluster service account; null when there are none. Short timeouts and no retries: a
     * person is waiting.
     */
    static Config config(Path kubeconfig, Map<String, String> environment) {
        String variable = environment.getOrDefault("KUBECONFIG", "");
        Config base;
        if (kubeconfig != null) {
            try {
                base = fromKubeconfig("the kubeconfig " + kubeconfig, Files.readString(kubeconfig));
            } catch (IOException e) {
                throw Railyard.UsageException.unreadable("--kubeconfig " + kubeconfig, e);
            }
        } else if (!variable.isBlank()) {
            List<Path> files = Arrays.stream(variable.split(File.pathSeparator)).filter(f -> !f.isBlank()).map(Path::of).toList();
            String merged;
            try {
                merged = KubeconfigMerge.merge(files);
            } catch (IOException e) {
                throw Railyard.UsageException.unreadable("the kubeconfig of KUBECONFIG=" + variable, e);
            }
            if (merged == null) {
                throw new Railyard.UsageException("KUBECONFIG=" + variable + " names no file that exists: set it to your kubeconfig, or unset it");
            }
            base = fromKubeconfig("the kubeconfig of KUBECONFIG=" + variable, merged);
        } else if (environment.containsKey("HOME") && Files.isRegularFile(Path.of(environment.get("HOME"), ".kube", "config"))) {
            Path file = Path.of(environment.get("HOME"), ".kube", "config");
            try {
                base = fromKubeconfig("the kubeconfig " + file, Files.readString(file));
            } catch (IOException e) {
                throw Railyard.UsageException.unreadable("the kubeconfig " + file, e);
            }
        } else if (environment.containsKey("KUBERNETES_SERVICE_HOST") && Files.isReadable(SERVICE_ACCOUNT_TOKEN)) {
            base = Config.autoConfigure(null);
        } else {
            return null;
        }
        return new ConfigBuilder(base)
                .withConnectionTimeout(CONNECT_TIMEOUT_MILLIS)
                .withRequestTimeout(REQUEST_TIMEOUT_MILLIS)
                .withRequestRetryBackoffLimit(0)
                .build();
    }

    /** fabric8 fails on an empty or malformed kubeconfig with whatever exception its parser throws. */
    private static Config fromKubeconfig(String what, String content) {
        try {
            if (content.isBlank()) {
                throw new IllegalArgumentException("it is empty");
            }
            Config config = Config.fromKubeconfig(content);
            if (config.getCurrentContext() == null) {
                throw new IllegalArgumentException("it has no current-context");
            }
            return config;
        } catch (RuntimeException e) {
            throw new Railyard.UsageException(what + " is not one that names a cluster ("
                    + firstLine(String.valueOf(e.getMessage())) + "): give a kubeconfig with a current-context");
        }
    }

    /** One line: the server and what went wrong with it. */
    static ClusterException unreachable(Config config, KubernetesClientException e) {
        return new ClusterException("cannot use the Kubernetes API at " + config.getMasterUrl() + ": " + cause(config, e));
    }

    /** Why a call of the client this process connected with failed. */
    static String cause(KubernetesClientException e) {
        return cause(connected, e);
    }

    /** Why a call failed, in a person's words: refused, no answer, TLS, unknown host, or who was refused (config may be null). */
    static String cause(Config config, KubernetesClientException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ConnectException) {
                return "connection refused (is the API server up, and is this its address?)";
            }
            if (t instanceof HttpTimeoutException) {
                return "no answer within " + CONNECT_TIMEOUT_MILLIS / 1000 + " s (a firewall, a VPN that is off, or the wrong address)";
            }
            if (t instanceof SSLException) {
                return "TLS failed: " + firstLine(t.getMessage()) + " (check the kubeconfig's certificate-authority)";
            }
            if (t instanceof UnknownHostException) {
                return "unknown host " + t.getMessage();
            }
        }
        if (e.getCode() == 401 || e.getCode() == 403) {
            String user = config == null || config.getCurrentContext() == null || config.getCurrentContext().getContext() == null ? "this user"
                    : "user " + config.getCurrentContext().getContext().getUser();
            return e.getCode() + (e.getCode() == 401 ? " Unauthorized: " : " Forbidden: ") + user
                    + (e.getCode() == 401 ? " is not known to the server (an expired token or certificate?)" : " may not do this (check its RBAC)");
        }
        return firstLine(e.getMessage());
    }

    static String firstLine(String message) {
        return String.valueOf(message).lines().findFirst().orElse("no message");
    }
}
