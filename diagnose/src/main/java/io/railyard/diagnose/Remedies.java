package io.railyard.diagnose;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A check's remedies, each said once with every port it applies to: {@code mlx5_0:1, mlx5_3:1: check the cable}. */
final class Remedies {
    private final Map<String, List<String>> subjectsByRemedy = new LinkedHashMap<>();

    void add(String subject, String remedy) {
        List<String> subjects = subjectsByRemedy.computeIfAbsent(remedy, ignored -> new ArrayList<>());
        if (!subjects.contains(subject)) {
            subjects.add(subject);
        }
    }

    @Override
    public String toString() {
        List<String> parts = new ArrayList<>();
        subjectsByRemedy.forEach((remedy, subjects) -> parts.add(String.join(", ", subjects) + ": " + remedy));
        return String.join("; ", parts);
    }
}
