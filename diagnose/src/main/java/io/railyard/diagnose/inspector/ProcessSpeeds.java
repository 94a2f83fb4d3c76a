package io.railyard.diagnose.inspector;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A pod's interval kept process by process, so that one slow GPU among eight is not lost in the pod's median. Inspector
 * writes a file per process and every record names its process ({@code metadata.pid}) and its rank in the
 * communicator: a process's global rank is its rank in the largest communicator it reports (the world's), and its GPU
 * is its local rank, the global rank modulo the processes a pod runs (torchrun numbers a node's ranks in a row, and each
 * process takes the GPU of its local rank). Bounded: {@value #MAX_PROCESSES} processes.
 */
public final class ProcessSpeeds {
    static final int MAX_PROCESSES = 64;

    /** The largest communicator a process reported, and its rank there. */
    private record World(int ranks, int rank) {}

    private final int processesPerPod;
    private final Map<Long, IntervalSpeeds> byPid = new LinkedHashMap<>();
    private final Map<Long, World> worlds = new HashMap<>();

    /** @param processesPerPod the ranks each pod runs (torchrun's --nproc-per-node); 0: as many as this pod's files show */
    public ProcessSpeeds(int processesPerPod) {
        this.processesPerPod = processesPerPod;
    }

    public synchronized void add(InspectorRecord record) {
        long pid = record.pid();
        if (pid < 0 || !byPid.containsKey(pid) && byPid.size() >= MAX_PROCESSES) {
            return;
        }
        byPid.computeIfAbsent(pid, p -> new IntervalSpeeds()).add(record);
        World known = worlds.get(pid);
        if (known == null || record.ranks() > known.ranks()) {
            worlds.put(pid, new World(record.ranks(), record.rank()));
        }
    }

    /**
     * The interval's processes by global rank, each with its GPU and the NIC {@code gpuNics} gives that GPU (the device
     * plugin's RAILYARD_GPU_NICS); a process that wrote nothing this interval is forgotten. A new interval begins.
     */
    public synchronized List<RankSummary.Process> close(Map<Integer, String> gpuNics) {
        List<RankSummary.Process> processes = new ArrayList<>();
        int perPod = processesPerPod > 0 ? processesPerPod : byPid.size();
        byPid.forEach((pid, interval) -> {
            List<IntervalSpeeds.Speed> speeds = interval.close();
            if (!speeds.isEmpty()) {
                int rank = worlds.get(pid).rank();
                int gpu = perPod > 0 ? rank % perPod : 0;
                processes.add(new RankSummary.Process(rank, pid, gpu, gpuNics.get(gpu), speeds));
            }
        });
        byPid.keySet().retainAll(processes.stream().map(RankSummary.Process::pid).toList());
        worlds.keySet().retainAll(byPid.keySet());
        processes.sort(Comparator.comparingInt(RankSummary.Process::rank));
        return processes;
    }

    /** RAILYARD_GPU_NICS as the device plugin writes it, {@code 0=mlx5_1:1,1=mlx5_1:1,...}: each GPU's nearest NIC; what is no entry is skipped. */
    public static Map<Integer, String> gpuNics(String map) {
        Map<Integer, String> nics = new HashMap<>();
        for (String entry : map == null ? new String[0] : map.strip().split(",")) {
            String[] parts = entry.strip().split("=", 2);
            if (parts.length == 2 && parts[0].matches("\\d{1,4}") && !parts[1].isBlank()) {
                nics.put(Integer.parseInt(parts[0]), parts[1].strip());
            }
        }
        return nics;
    }
}
