package io.railyard.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;

/**
 * The gate before torchrun: each pod measures its allocated HCAs against the next pod's (a ring over the gang) with
 * ib_write_bw, and the job fails with PreflightFailed instead of training on a slow link.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PreflightSpec {
    @Min(1)
    @Max(100)
    @JsonPropertyDescription("A link below this share of its line rate fails the job (default 80).")
    public Integer minLineRatePercent;

    @Min(10)
    @JsonPropertyDescription("Seconds the test may take, waiting for the peers included (default 300).")
    public Integer timeoutSeconds;

    @JsonPropertyDescription("Image with railyard and perftest's ib_write_bw (default: Railyard's own image).")
    public String image;
}
