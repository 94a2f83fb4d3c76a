# The Railyard image: one jar, every command (agent, doctor, fabric, ...). Build the jar first: ./mvnw -DskipTests package
FROM eclipse-temurin:25-jre
# infiniband-diags: ibnetdiscover, iblinkinfo and ibqueryerrors for `railyard fabric` (deploy/fabric)
RUN apt-get update && apt-get install -y --no-install-recommends infiniband-diags && rm -rf /var/lib/apt/lists/*
COPY cli/target/railyard.jar /opt/railyard/railyard.jar
USER 65532:65532
ENTRYPOINT ["java", "-jar", "/opt/railyard/railyard.jar"]
