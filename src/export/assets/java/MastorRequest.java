package mastor.suite;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The request of one oracle, written the way a reviewer reads it: method and path template,
 * then path, query and header parameters and the body. {@code MastorAssert.Checks.send}
 * sends it with mastor's own rules: path values are percent-encoded into the template,
 * {@code pathRaw} values go in as written, a query array repeats its name, a JSON body gets
 * {@code Content-Type: application/json} unless a header says otherwise.
 *
 * <p>Values are Java literals (text, whole numbers, booleans) or {@code MastorAssert.json}
 * for any other JSON. In a sequence, {@code "$captures.name"} is replaced by what an earlier
 * step captured.
 */
public final class MastorRequest {
    final String method;
    final String template;
    final ObjectNode input = JsonNodeFactory.instance.objectNode();

    private MastorRequest(String method, String template) {
        this.method = method;
        this.template = template;
    }

    /** A request to {@code template} (e.g. {@code /pets/{petId}}) with {@code method}. */
    public static MastorRequest request(String method, String template) {
        return new MastorRequest(method, template);
    }

    /** A value for the path placeholder {@code {name}}. */
    public MastorRequest path(String name, Object value) {
        return put("path", name, value);
    }

    /** A path value sent as written (already encoded, or deliberately malformed). */
    public MastorRequest pathRaw(String name, String raw) {
        return put("path_raw", name, raw);
    }

    /** A query parameter (an array value repeats the name once per element). */
    public MastorRequest query(String name, Object value) {
        return put("query", name, value);
    }

    /** A query string appended as written, after the parameters. */
    public MastorRequest queryRaw(String raw) {
        input.put("query_raw", raw);
        return this;
    }

    /** A request header. */
    public MastorRequest header(String name, Object value) {
        return put("headers", name, value);
    }

    /** A JSON body, from its JSON text. */
    public MastorRequest body(String json) {
        input.set("body", MastorAssert.json(json));
        return this;
    }

    /** A body sent byte for byte (not JSON, or malformed on purpose) with its content type. */
    public MastorRequest rawBody(String contentType, String text) {
        ObjectNode raw = input.putObject("raw_body");
        raw.put("content_type", contentType);
        raw.put("text", text);
        return this;
    }

    /** Another method than the operation's (a 405 case). */
    public MastorRequest method(String other) {
        input.put("method", other);
        return this;
    }

    private MastorRequest put(String part, String name, Object value) {
        ObjectNode map = input.has(part) ? (ObjectNode) input.get(part) : input.putObject(part);
        map.set(name, MastorAssert.node(value));
        return this;
    }
}
