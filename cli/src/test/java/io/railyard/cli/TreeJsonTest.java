package io.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.railyard.fabric.FabricReport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** TreeJson writes what Jackson's pretty printer writes (Json.write), byte for byte: the fabric report's JSON did not change. */
class TreeJsonTest {
    private static final Path IBSIM = Path.of(System.getProperty("railyard.repo", "..")).resolve("testdata/ibsim");

    @Test
    void theFabricReportAndObjectsAreWhatJacksonWritesForTheSameTree() throws Exception {
        String report = fabricJson();
        assertThat(report).isEqualTo(jacksonOf(report)).contains("\"findings\" : [ {", "\"evidence\" : \"");

        String objects = fabricJson("--labels", "--hyper-nodes", "--kueue-topology");
        assertThat(objects).isEqualTo(jacksonOf(objects)).contains("\"kind\" : \"HyperNode\"");
    }

    private static String fabricJson(String... more) {
        String faults = IBSIM.resolve("fattree-faults").toString();
        List<String> args = new ArrayList<>(List.of("fabric", "--ibnetdiscover", faults + "/ibnetdiscover.txt", "--iblinkinfo",
                faults + "/iblinkinfo.txt", "--ibqueryerrors", faults + "/ibqueryerrors.txt", "-o", "json"));
        args.addAll(List.of(more));
        return CommandRun.of(args.toArray(String[]::new)).out();
    }

    private static String jacksonOf(String json) throws Exception {
        return Json.write(new ObjectMapper().readValue(json, Object.class)) + "\n";
    }

    @Test
    void escapesEmptiesNestingAndNullsAsJacksonDoes() {
        Map<String, Object> tree = new LinkedHashMap<>();
        tree.put("quotes", "a \"quoted\" \\ path\\to");
        tree.put("controls", "tab\there\nnew line\r\b\f\u0001\u001f end");
        tree.put("unicode", "❌ café 𝄞 <script>/");
        tree.put("empty map", Map.of());
        tree.put("empty list", List.of());
        tree.put("numbers", List.of(0, -7, Integer.MAX_VALUE, Long.MIN_VALUE));
        tree.put("flags", List.of(true, false));
        tree.put("none", null);
        tree.put("nested", List.of(List.of(), List.of(Map.of("a", List.of(Map.of("b", "c")))), Arrays.asList("x", null)));
        tree.put("", Map.of("inner", Map.of("deeper", List.of(1))));

        assertThat(TreeJson.write(tree)).isEqualTo(Json.write(tree));
        assertThat(TreeJson.write(List.of())).isEqualTo(Json.write(List.of()));
        assertThat(TreeJson.write("alone")).isEqualTo(Json.write("alone"));
    }

    @Test
    void aLongArrayWrittenInParallelKeepsItsOrder() {
        List<Object> hosts = new ArrayList<>();
        for (int i = 0; i < 2_500; i++) {
            hosts.add(i % 7 == 0 ? List.of("gpu-node-" + i, i) : Map.of("host", "gpu-node-" + i, "hcas", List.of(Map.of("lid", i))));
        }
        Map<String, Object> tree = new LinkedHashMap<>();
        tree.put("hosts", hosts);
        tree.put("after", List.of(hosts.subList(0, 1_200)));

        assertThat(TreeJson.write(tree)).isEqualTo(Json.write(tree));
    }

    @Test
    void aValueThatIsNotPartOfAJsonTreeIsRefused() {
        assertThatThrownBy(() -> TreeJson.write(Map.of("timeout", Duration.ofSeconds(5))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("java.time.Duration");
    }
}
