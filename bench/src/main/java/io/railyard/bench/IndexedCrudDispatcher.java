package io.railyard.bench;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.server.mock.KubernetesAttributesExtractor;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.crud.Attribute;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.HttpURLConnection;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

/**
 * The fabric8 CRUD mock API server's dispatcher, unchanged but for one thing: an object named in a request is found by
 * its name instead of by a walk of every object stored. The stock dispatcher walks (and for a GET copies) the whole
 * store on every create, patch, update and get, so that at 12,500 nodes and 50,000 other pods each request costs it
 * about 70 ms and a benchmark measures the mock, not the operator; an API server finds an object by its key. Lists,
 * watches and deletes are the stock dispatcher's own.
 */
final class IndexedCrudDispatcher extends KubernetesCrudDispatcher {
    /** The stored objects' keys by their name: guarded by {@link #lock}, as the store is. */
    private final Map<Attribute, List<AttributeSet>> byName = new HashMap<>();
    /** Taken around the stock dispatcher's own lock, so that the index and the store change together. */
    private final ReadWriteLock lock = new ReentrantReadWriteLock();

    @Override
    public MockResponse handleCreate(RecordedRequest request) {
        return locked(lock.writeLock(), () -> super.handleCreate(request));
    }

    @Override
    public MockResponse handleUpdate(RecordedRequest request) {
        return locked(lock.writeLock(), () -> super.handleUpdate(request));
    }

    @Override
    public MockResponse handlePatch(RecordedRequest request) {
        return locked(lock.writeLock(), () -> super.handlePatch(request));
    }

    @Override
    public MockResponse handleDelete(String path) {
        return locked(lock.writeLock(), () -> super.handleDelete(path));
    }

    /** One object by name as the stock dispatcher answers it (its body, or 404); lists and watches are the stock dispatcher's. */
    @Override
    public MockResponse handleGet(String path) {
        AttributeSet query = getKey(path);
        if (!query.containsKey(KubernetesAttributesExtractor.NAME) || path.contains("watch=true")) {
            return locked(lock.readLock(), () -> super.handleGet(path));
        }
        return locked(lock.readLock(), () -> {
            Map.Entry<AttributeSet, String> found = findResource(query);
            return found == null ? new MockResponse().setResponseCode(HttpURLConnection.HTTP_NOT_FOUND)
                    : new MockResponse().setResponseCode(HttpURLConnection.HTTP_OK).setBody(found.getValue());
        });
    }

    @Override
    public Map.Entry<AttributeSet, String> findResource(AttributeSet query) {
        Attribute name = query.getAttribute(KubernetesAttributesExtractor.NAME);
        if (name == null) {
            return super.findResource(query);
        }
        for (AttributeSet key : byName.getOrDefault(name, List.of())) {
            if (key.matches(query)) {
                return Map.entry(key, map.get(key));
            }
        }
        return null;
    }

    /** The stock dispatcher's one place where the store changes: the index follows it. */
    @Override
    public void processEvent(String path, AttributeSet pathAttributes, AttributeSet oldAttributes, GenericKubernetesResource resource,
            String newState) {
        super.processEvent(path, pathAttributes, oldAttributes, resource, newState);
        if (oldAttributes != null) {
            List<AttributeSet> named = byName.get(oldAttributes.getAttribute(KubernetesAttributesExtractor.NAME));
            if (named != null) {
                named.remove(oldAttributes);
            }
        }
        if (newState != null) {
            AttributeSet stored = storedKey(pathAttributes, resource, newState);
            byName.computeIfAbsent(stored.getAttribute(KubernetesAttributesExtractor.NAME), n -> new ArrayList<>(1)).add(stored);
        }
    }

    /** The key the stock dispatcher has just stored the new state under (its processEvent computes it the same way). */
    private AttributeSet storedKey(AttributeSet pathAttributes, GenericKubernetesResource resource, String newState) {
        KubernetesAttributesExtractor extractor = (KubernetesAttributesExtractor) getAttributeExtractor();
        AttributeSet attributes = resource != null ? extractor.extract(resource) : extractor.fromResource(newState);
        return attributes.containsKey(KubernetesAttributesExtractor.PLURAL) ? attributes : AttributeSet.merge(pathAttributes, attributes);
    }

    private static MockResponse locked(Lock lock, Supplier<MockResponse> handler) {
        lock.lock();
        try {
            return handler.get();
        } finally {
            lock.unlock();
        }
    }
}
