package io.railyard.e2e;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives a test the {@link Installation} of this JVM: one real control plane and one operator for all the e2e tests,
 * started by the first test that asks and stopped (the operator, then the cluster) when the last has run.
 */
public final class RealCluster implements ParameterResolver {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(RealCluster.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == Installation.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        ExtensionContext.Store store = context.getRoot().getStore(NAMESPACE);
        ControlPlane cluster = store.getOrComputeIfAbsent(ControlPlane.class, key -> ControlPlane.start(), ControlPlane.class);
        return store.getOrComputeIfAbsent(Installation.class, key -> Installation.install(cluster), Installation.class);
    }
}
