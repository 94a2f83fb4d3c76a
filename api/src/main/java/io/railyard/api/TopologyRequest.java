package io.railyard.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;

/** Where the gang must, or should, be placed whole: under one domain of a node label, such as one InfiniBand leaf. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TopologyRequest {
    /** Whether the gang waits for one domain with room for all of it, or may spread when none has. */
    public enum Mode {
        @JsonProperty("Required") REQUIRED,
        @JsonProperty("Preferred") PREFERRED
    }

    @Required
    @JsonPropertyDescription("The node label whose value every member shares (e.g. railyard.io/ib-leaf, which railyard fabric writes);"
            + " a level of the scheduler's topology.")
    public String level;

    @JsonPropertyDescription("Required (default: the gang waits for one domain with room for all of it) or Preferred (one domain if"
            + " any has room, else spread).")
    public Mode mode;
}
