package io.railyard.bench;

import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.util.HashMap;

/**
 * The fabric8 CRUD mock API server (its objects found by name: {@link IndexedCrudDispatcher}) in a process of its own, as
 * an API server is to a node agent or an operator: prints its URL, then
 * serves until its standard input closes.
 */
public final class MockApiServer {
    private MockApiServer() {}

    public static void main(String[] args) throws Exception {
        KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new IndexedCrudDispatcher(), false);
        server.init();
        System.out.println("http://" + server.getHostName() + ":" + server.getPort());
        System.out.flush();
        while (System.in.read() >= 0) {
            // serve until the caller closes the pipe
        }
        server.destroy();
        System.exit(0);
    }
}
