# The Railyard image: one jar, every command (agent, doctor, ...). Build the jar first: ./mvnw -DskipTests package
FROM eclipse-temurin:25-jre
COPY cli/target/railyard.jar /opt/railyard/railyard.jar
USER 65532:65532
ENTRYPOINT ["java", "-jar", "/opt/railyard/railyard.jar"]
