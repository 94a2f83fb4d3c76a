# The Railyard image: one jar, every command (agent, doctor, fabric, ...). Build the jar first: ./mvnw -DskipTests package
FROM eclipse-temurin:25-jre
# infiniband-diags: ibnetdiscover, iblinkinfo and ibqueryerrors for `railyard fabric` (deploy/fabric); perftest: ib_write_bw for
# `railyard preflight` and the TrainingJob gate, ib_write_bw and ib_write_lat for `railyard speedup`, beside iperf3 for its TCP
# side; curl trains the cache below
RUN apt-get update && apt-get install -y --no-install-recommends infiniband-diags perftest iperf3 curl && rm -rf /var/lib/apt/lists/*
COPY cli/target/railyard.jar /opt/railyard/railyard.jar
COPY examples/nodes/roce-8gpu /opt/railyard/train/roce-8gpu
COPY tools/train-aot-cache tools/agent-jvm-options /opt/railyard/train/
# The agent's ahead-of-time cache (-XX:AOTCache in deploy/agent): its scrape path trained on an example node, with the
# agent's own JVM flags, so that a new agent is warm from its first scrapes.
RUN /opt/railyard/train/train-aot-cache java /opt/railyard/railyard.jar /opt/railyard/train/roce-8gpu /opt/railyard/agent.aot \
      "$(grep -v '^#' /opt/railyard/train/agent-jvm-options)" \
    && rm -rf /opt/railyard/train
USER 65532:65532
ENTRYPOINT ["java", "-jar", "/opt/railyard/railyard.jar"]
